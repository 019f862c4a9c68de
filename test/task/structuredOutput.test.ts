import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { ConverterError, Task } from "../../src/task/index.js";
import { fakeAgent, final } from "./helpers.js";

const Person = z.object({ name: z.string(), age: z.number() });

describe("structured output", () => {
  it("parses a direct JSON answer into output.parsed, typed by the schema", async () => {
    const { agent, llm } = fakeAgent([final('{"name": "Ada", "age": 36}')]);
    const task = new Task({ description: "Who wrote the first program?", expectedOutput: "The person", agent, outputSchema: Person });
    const output = await task.executeSync();
    expectTypeOf(output.parsed).toEqualTypeOf<{ name: string; age: number } | undefined>();
    expect(output.parsed).toEqual({ name: "Ada", age: 36 });
    expect(output.jsonDict).toEqual({ name: "Ada", age: 36 });
    expect(output.outputFormat).toBe("json");
    expect(output.toString()).toBe(JSON.stringify({ name: "Ada", age: 36 }, null, 2));
    expect(llm.calls).toHaveLength(1);
  });

  it("finds JSON in a fenced block", async () => {
    const { agent, llm } = fakeAgent([final('Here it is:\n```json\n{"name": "Ada", "age": 36}\n```')]);
    const output = await new Task({ description: "d", expectedOutput: "x", agent, outputSchema: Person }).executeSync();
    expect(output.parsed).toEqual({ name: "Ada", age: 36 });
    expect(llm.calls).toHaveLength(1);
  });

  it("finds JSON in mixed text", async () => {
    const { agent } = fakeAgent([final('The answer is {"name": "Ada", "age": 36} as requested.')]);
    const output = await new Task({ description: "d", expectedOutput: "x", agent, outputSchema: Person }).executeSync();
    expect(output.parsed).toEqual({ name: "Ada", age: 36 });
  });

  it("asks the agent's LLM to convert prose, and counts the tokens for the agent", async () => {
    const { agent, llm } = fakeAgent([final("Ada Lovelace, who was 36 years old."), '{"name": "Ada Lovelace", "age": 36}'], {
      usage: { promptTokens: 10, completionTokens: 2, totalTokens: 12 },
    });
    const output = await new Task({ description: "d", expectedOutput: "x", agent, outputSchema: Person }).executeSync();
    expect(output.raw).toBe("Ada Lovelace, who was 36 years old.");
    expect(output.parsed).toEqual({ name: "Ada Lovelace", age: 36 });
    expect(llm.calls).toHaveLength(2);
    expect(llm.calls[1]!.messages.at(-1)!.content).toContain("Ada Lovelace, who was 36 years old.");
    expect(agent.usageMetrics).toEqual({ promptTokens: 20, completionTokens: 4, totalTokens: 24, successfulRequests: 2 });
  });

  it("fails the task with a ConverterError naming it when nothing converts", async () => {
    const { agent } = fakeAgent([final("no idea"), "still no idea", "nope", "sorry"]);
    const task = new Task({ description: "Extract the person", expectedOutput: "x", agent, outputSchema: Person, name: "extract" });
    const error = await task.executeSync().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConverterError);
    expect((error as Error).message).toContain("Task 'extract'");
    expect((error as ConverterError).rawOutput).toBe("no idea");
    expect(task.output).toBeUndefined();
  });
});
