// The option interfaces are written out (with a doc comment per option, shown on hover); the zod
// schemas validate them. These checks keep the two in step: same keys, and a schema's accepted
// input fits the interface.
import { describe, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type { agentOptionsSchema} from "../../src/agent/AgentOptions.js";
import { type AgentOptions } from "../../src/agent/AgentOptions.js";
import type { crewOptionsSchema} from "../../src/crew/CrewOptions.js";
import { type CrewOptions } from "../../src/crew/CrewOptions.js";
import type { llmOptionsSchema} from "../../src/llm/LLMOptions.js";
import { type LLMOptions } from "../../src/llm/LLMOptions.js";
import type { taskOptionsShape} from "../../src/task/TaskOptions.js";
import { type TaskOptions } from "../../src/task/TaskOptions.js";

type Keys<T> = keyof T & string;

describe("option interfaces and their schemas", () => {
  it("have the same keys", () => {
    expectTypeOf<Keys<AgentOptions>>().toEqualTypeOf<Keys<z.input<typeof agentOptionsSchema>>>();
    expectTypeOf<Keys<CrewOptions>>().toEqualTypeOf<Keys<z.input<typeof crewOptionsSchema>>>();
    expectTypeOf<Keys<LLMOptions>>().toEqualTypeOf<Keys<z.input<typeof llmOptionsSchema>>>();
    expectTypeOf<Keys<TaskOptions>>().toEqualTypeOf<Keys<typeof taskOptionsShape>>();
  });

  it("LLMOptions is what llmOptionsSchema accepts", () => {
    expectTypeOf<z.input<typeof llmOptionsSchema>>().toExtend<LLMOptions>();
    expectTypeOf<LLMOptions>().toExtend<z.input<typeof llmOptionsSchema>>();
  });
});
