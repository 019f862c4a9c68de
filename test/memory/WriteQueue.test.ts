import { describe, expect, it } from "vitest";
import { WriteQueue } from "../../src/memory/WriteQueue.js";

const ticks = async (n: number) => {
  for (let i = 0; i < n; i++) await Promise.resolve();
};

describe("WriteQueue", () => {
  it("writes entries queued together in one batch, and later ones in the next", async () => {
    const batches: number[][] = [];
    const queue = new WriteQueue<number>(async (batch) => {
      batches.push(batch);
      await new Promise((resolve) => setTimeout(resolve, 5));
    });
    queue.enqueue(1);
    queue.enqueue(2);
    await ticks(3);
    queue.enqueue(3);
    queue.enqueue(4);
    await queue.settle();
    expect(batches).toEqual([[1, 2], [3, 4]]);
  });

  it("honours batchSize and keeps each failure until taken", async () => {
    const written: number[][] = [];
    const failed: number[] = [];
    const queue = new WriteQueue<number>(
      async (batch) => {
        if (batch.includes(2)) throw new Error("two is bad");
        written.push(batch);
      },
      { onFailed: (entry) => failed.push(entry) },
      1,
    );
    for (const n of [1, 2, 3]) queue.enqueue(n);
    await queue.settle();
    expect(written).toEqual([[1], [3]]);
    expect(failed).toEqual([2]);
    expect(queue.takeFailures().map((e) => e.message)).toEqual(["two is bad"]);
    expect(queue.takeFailures()).toEqual([]);
  });

  it("never strands an entry queued just as a drain ends", async () => {
    for (let delay = 0; delay < 8; delay++) {
      const written: string[] = [];
      const queue = new WriteQueue<string>(async (batch) => {
        written.push(...batch);
      });
      queue.enqueue("first");
      void ticks(delay).then(() => queue.enqueue("late"));
      await ticks(10);
      await queue.settle();
      expect(written, `enqueued ${delay} microtasks later`).toEqual(["first", "late"]);
    }
  });
});
