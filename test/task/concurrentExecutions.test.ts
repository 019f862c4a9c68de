import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { Task } from "../../src/task/index.js";
import { FakeLLM } from "../../src/testing/index.js";

const final = (text: string): string => `Thought: done\nFinal Answer: ${text}`;

describe("concurrent executions of one task", () => {
  it("counts each execution's guardrail retries on its own and shows the one that ended last", async () => {
    // "slow" runs answer well after a delay; "fast" runs answer badly twice, then well.
    let fastCalls = 0;
    const llm = new FakeLLM(async (messages) => {
      const text = messages.map((m) => m.content).join("\n");
      if (text.includes("slow")) {
        await new Promise((resolve) => setTimeout(resolve, 30));
        return final("good slow");
      }
      return final(++fastCalls > 2 ? "good fast" : "bad");
    });
    const agent = new Agent({ role: "Writer", goal: "Write", backstory: "Writes.", llm });
    const task = new Task({
      description: "Write it",
      expectedOutput: "Something good",
      agent,
      guardrail: (output) => (output.raw.startsWith("good") ? [true, output.raw] : [false, "not good enough"]),
    });
    const slow = task.executeSync({ context: "slow" });
    const fast = await task.executeSync({ context: "fast" });
    expect(fast.raw).toBe("good fast");
    expect(task.retryCount).toBe(2);
    expect((await slow).raw).toBe("good slow");
    expect(task.retryCount).toBe(0);
    expect(task.output?.raw).toBe("good slow");
    expect(task.promptContext).toBe("slow");
  });
});
