import { describe, expect, it, vi } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { Crew } from "../../src/crew/index.js";
import { TURN_BUDGET, waitForTurn } from "../../src/runtime/turnPacing.js";
import { InMemoryTaskOutputStore } from "../../src/storage/index.js";
import { Task } from "../../src/task/index.js";
import { FakeLLM } from "../../src/testing/index.js";

/** Resolves in the next check phase of the event loop: after every step that went on in this turn. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("waitForTurn", () => {
  it("lets TURN_BUDGET steps go on in one turn, and the rest a batch per later turn, in order", async () => {
    await nextTurn(); // a fresh turn, whatever ran before
    const order: number[] = [];
    const waits: Promise<void>[] = [];
    let immediate = 0;
    for (let i = 0; i < TURN_BUDGET * 3; i++) {
      const turn = waitForTurn();
      if (turn === undefined) order.push(i);
      else waits.push(turn.then(() => void order.push(i)));
    }
    expect(order).toHaveLength(TURN_BUDGET);
    expect(waits).toHaveLength(TURN_BUDGET * 2);
    // Something queued behind the burst (a timer, a socket) gets the loop before the last batch goes on.
    setImmediate(() => (immediate = order.length));
    await Promise.all(waits);
    expect(order).toEqual(Array.from({ length: TURN_BUDGET * 3 }, (_, i) => i));
    expect(immediate).toBeGreaterThanOrEqual(TURN_BUDGET);
    expect(immediate).toBeLessThan(TURN_BUDGET * 3);
  });

  it("still ends its turns under fake timers (a test of the user's that fakes setImmediate)", async () => {
    await nextTurn();
    vi.useFakeTimers();
    try {
      const waits = Array.from({ length: TURN_BUDGET * 2 }, () => waitForTurn()).filter((turn) => turn !== undefined);
      expect(waits).toHaveLength(TURN_BUDGET);
      await Promise.all(waits);
    } finally {
      vi.useRealTimers();
    }
  });

  it("never makes a handful of steps wait", async () => {
    await nextTurn();
    for (let i = 0; i < 10; i++) expect(waitForTurn()).toBeUndefined();
  });
});

describe("many kickoffs started in one loop", () => {
  it("start a few hundred per turn of the event loop, and each still gets its own answer", async () => {
    const runs = TURN_BUDGET * 4;
    const llm = new FakeLLM((messages) => `Final Answer: about ${/Write about (\S+)/.exec(messages.map((m) => m.content).join("\n"))?.[1] ?? "?"}`, { record: false });
    const agent = new Agent({ role: "Writer", goal: "Write about {topic}", backstory: "Quick", llm });
    const task = new Task({ description: "Write about {topic}", expectedOutput: "a line", agent });
    const crew = new Crew({ agents: [agent], tasks: [task], taskOutputStore: new InMemoryTaskOutputStore() });
    await nextTurn();
    const outputs = Promise.all(Array.from({ length: runs }, (_, i) => crew.kickoff({ topic: `t${i}` })));
    let callsWhenTheLoopWasFree = -1;
    setImmediate(() => (callsWhenTheLoopWasFree = llm.callCount));
    const results = await outputs;
    // The loop was free again before every kickoff had even reached its model.
    expect(callsWhenTheLoopWasFree).toBeGreaterThan(0);
    expect(callsWhenTheLoopWasFree).toBeLessThan(runs);
    expect(results.map((r) => r.raw)).toEqual(Array.from({ length: runs }, (_, i) => `about t${i}`));
  });
});
