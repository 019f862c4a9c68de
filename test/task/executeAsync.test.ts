import { performance } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { Task } from "../../src/task/index.js";
import { fakeAgent, final } from "./helpers.js";

describe("executeAsync", () => {
  it("runs two tasks concurrently", async () => {
    const { agent: a } = fakeAgent([final("first")], { latencyMs: 150 });
    const { agent: b } = fakeAgent([final("second")], { latencyMs: 150 });
    const t1 = new Task({ description: "one", expectedOutput: "x", agent: a, asyncExecution: true });
    const t2 = new Task({ description: "two", expectedOutput: "x", agent: b, asyncExecution: true });
    const started = performance.now();
    const p1 = t1.executeAsync();
    const p2 = t2.executeAsync();
    const [o1, o2] = await Promise.all([p1, p2]);
    const elapsed = performance.now() - started;
    expect([o1.raw, o2.raw]).toEqual(["first", "second"]);
    expect(elapsed).toBeLessThan(280);
    expect(elapsed).toBeGreaterThanOrEqual(140);
  });

  it("starts at once and surfaces errors when awaited later, without unhandled rejections", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const orphan = new Task({ description: "No agent here", expectedOutput: "x" });
      const { agent, llm } = fakeAgent([final("ok")], { latencyMs: 100 });
      const pending = orphan.executeAsync();
      const task = new Task({ description: "runs", expectedOutput: "x", agent });
      const running = task.executeAsync();
      // Started without being awaited: the model is already being called while the caller does other work.
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(llm.calls).toHaveLength(1);
      expect(task.output).toBeUndefined();
      await running;
      await new Promise((resolve) => setTimeout(resolve, 30));
      await expect(pending).rejects.toThrow("has no agent assigned");
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
