import { describe, expect, it } from "vitest";
import { Task } from "../../src/task/index.js";
import { fakeAgent, final, meetingResponders } from "./helpers.js";

describe("executeAsync", () => {
  it("runs two tasks concurrently", async () => {
    const [first, second] = meetingResponders("first", "second");
    const { agent: a } = fakeAgent(first!);
    const { agent: b } = fakeAgent(second!);
    const t1 = new Task({ description: "one", expectedOutput: "x", agent: a, asyncExecution: true });
    const t2 = new Task({ description: "two", expectedOutput: "x", agent: b, asyncExecution: true });
    const [o1, o2] = await Promise.all([t1.executeAsync(), t2.executeAsync()]);
    expect([o1.raw, o2.raw]).toEqual(["first", "second"]);
  });

  it("starts at once and surfaces errors when awaited later, without unhandled rejections", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const orphan = new Task({ description: "No agent here", expectedOutput: "x" });
      let called!: () => void;
      const modelCalled = new Promise<void>((resolve) => (called = resolve));
      let answer!: () => void;
      const answered = new Promise<void>((resolve) => (answer = resolve));
      const { agent, llm } = fakeAgent(async () => {
        called();
        await answered;
        return final("ok");
      });
      const pending = orphan.executeAsync();
      const task = new Task({ description: "runs", expectedOutput: "x", agent });
      const running = task.executeAsync();
      // Started without being awaited: the model is called while the caller does other work.
      await modelCalled;
      expect(llm.calls).toHaveLength(1);
      expect(task.output).toBeUndefined();
      answer();
      await running;
      // Node reports unhandled rejections once the microtasks have run; a macrotask later they would be seen.
      await new Promise((resolve) => setImmediate(resolve));
      await expect(pending).rejects.toThrow("has no agent assigned");
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
