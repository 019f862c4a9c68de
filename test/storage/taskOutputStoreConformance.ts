import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { NewStoredTaskOutput, TaskOutputStore } from "../../src/storage/TaskOutputStore.js";

/** What a backend gives the suite: a fresh store, and for durable backends a way to open the same data again. */
export interface TaskOutputStoreFixture {
  store: TaskOutputStore;
  /** A second store over the same data (a new instance, as a new process would open). */
  reopen?: () => TaskOutputStore;
  cleanup?: () => Promise<void>;
}

const record = (taskIndex: number, extra: Partial<NewStoredTaskOutput> = {}): NewStoredTaskOutput => ({
  taskId: `task-${taskIndex}`,
  expectedOutput: `expected ${taskIndex}`,
  output: { description: `do ${taskIndex}`, raw: `answer ${taskIndex}`, agent: "Researcher", outputFormat: "raw", parsed: { n: taskIndex } },
  taskIndex,
  inputs: { topic: "AI" },
  ...extra,
});

/** The behaviour every TaskOutputStore backend must show. */
/** `durable`: the backend keeps data across instances (its fixture then provides `reopen`). */
export function describeTaskOutputStore(
  name: string,
  factory: () => TaskOutputStoreFixture | Promise<TaskOutputStoreFixture>,
  { durable = false }: { durable?: boolean } = {},
): void {
  describe(`TaskOutputStore conformance: ${name}`, () => {
    let fixture: TaskOutputStoreFixture;
    let store: TaskOutputStore;
    const opened: TaskOutputStore[] = [];

    beforeEach(async () => {
      fixture = await factory();
      store = fixture.store;
      opened.push(store);
    });

    afterEach(async () => {
      for (const s of opened.splice(0)) await s.close();
      await fixture.cleanup?.();
      vi.restoreAllMocks();
    });

    it("starts empty", async () => {
      expect(await store.loadAll()).toEqual([]);
    });

    it("adds records and fills in defaults", async () => {
      await store.add({ taskId: "t0", expectedOutput: "e", output: { raw: "r" }, taskIndex: 0 });
      const [only, ...rest] = await store.loadAll();
      expect(rest).toEqual([]);
      expect(only).toMatchObject({ taskId: "t0", expectedOutput: "e", output: { raw: "r" }, taskIndex: 0, inputs: {}, wasReplayed: false });
      expect(Number.isNaN(Date.parse(only!.timestamp))).toBe(false);
    });

    it("keeps every field as given", async () => {
      const full = { ...record(3), wasReplayed: true, timestamp: "2024-05-01T10:00:00.000Z" };
      await store.add(full);
      expect(await store.loadAll()).toEqual([full]);
    });

    it("loads records ordered by taskIndex whatever the insertion order", async () => {
      for (const i of [2, 0, 11, 1]) await store.add(record(i));
      expect((await store.loadAll()).map((r) => r.taskIndex)).toEqual([0, 1, 2, 11]);
    });

    it("upserts by taskIndex", async () => {
      await store.add(record(0));
      await store.add(record(1));
      await store.add(record(0, { taskId: "other", output: { raw: "second" }, inputs: { topic: "ML" } }));
      const all = await store.loadAll();
      expect(all).toHaveLength(2);
      expect(all[0]).toMatchObject({ taskIndex: 0, taskId: "other", output: { raw: "second" }, inputs: { topic: "ML" } });
      expect(all[1]).toMatchObject({ taskIndex: 1, taskId: "task-1" });
    });

    it("updates only the given fields of one record", async () => {
      await store.add(record(0));
      await store.add(record(1));
      await store.update(1, { output: { raw: "replayed" }, wasReplayed: true, inputs: undefined });
      const [first, second] = await store.loadAll();
      expect(first).toEqual(expect.objectContaining({ ...record(0), wasReplayed: false }));
      expect(second).toMatchObject({ taskId: "task-1", expectedOutput: "expected 1", output: { raw: "replayed" }, inputs: { topic: "AI" }, wasReplayed: true });
    });

    it("warns and changes nothing when updating a missing record", async () => {
      const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
      await store.add(record(0));
      await store.update(5, { wasReplayed: true });
      expect(warn).toHaveBeenCalledWith(expect.stringContaining("taskIndex 5"), expect.anything());
      expect(await store.loadAll()).toEqual([expect.objectContaining({ taskIndex: 0, wasReplayed: false })]);
    });

    it("rejects an invalid taskIndex", async () => {
      await expect(store.add(record(-1))).rejects.toThrow(/taskIndex/);
      await expect(store.add(record(1.5))).rejects.toThrow(/taskIndex/);
    });

    it("returns copies that do not change the stored records", async () => {
      await store.add(record(0));
      const [loaded] = await store.loadAll();
      loaded!.output.raw = "mutated";
      loaded!.inputs.topic = "mutated";
      expect((await store.loadAll())[0]).toMatchObject({ output: { raw: "answer 0" }, inputs: { topic: "AI" } });
    });

    it("stores outputs as JSON (undefined fields dropped)", async () => {
      await store.add(record(0, { output: { raw: "r", name: undefined, nested: { list: [1, "two", null] } } }));
      const [loaded] = await store.loadAll();
      expect(loaded!.output).toEqual({ raw: "r", nested: { list: [1, "two", null] } });
    });

    it("reset deletes every record and the store stays usable", async () => {
      await store.add(record(0));
      await store.add(record(1));
      await store.reset();
      expect(await store.loadAll()).toEqual([]);
      await store.add(record(2));
      expect((await store.loadAll()).map((r) => r.taskIndex)).toEqual([2]);
    });

    it("close can be called repeatedly, and a closed store can be used again", async () => {
      await store.close();
      await store.close();
      await store.add(record(0));
      expect((await store.loadAll()).map((r) => r.taskIndex)).toEqual([0]);
    });

    it("handles concurrent first use", async () => {
      await Promise.all([0, 1, 2, 3].map((i) => store.add(record(i))));
      expect((await store.loadAll()).map((r) => r.taskIndex)).toEqual([0, 1, 2, 3]);
    });

    // Only durable backends have this test; volatile ones lose their data by design.
    if (durable) it("persists across instances", async () => {
      expect(fixture.reopen, "a durable backend's fixture must provide reopen()").toBeDefined();
      await store.add(record(0));
      await store.add(record(1, { wasReplayed: true }));
      await store.close();
      const again = fixture.reopen!();
      opened.push(again);
      expect(await again.loadAll()).toEqual(await store.loadAll());
      expect((await again.loadAll()).map((r) => [r.taskIndex, r.wasReplayed])).toEqual([
        [0, false],
        [1, true],
      ]);
    });
  });
}
