import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Checkpoint, CheckpointStore, FlowJournalEntry } from "../../../src/runtime/checkpoint/types.js";
import { newCheckpointId } from "../../../src/runtime/checkpoint/checkpointStores.js";

/** What a backend gives the suite: a fresh store, a way to open the same data again, and cleanup. */
export interface CheckpointStoreFixture {
  store: CheckpointStore;
  /** A second store over the same data, as another process would open it. */
  reopen: () => CheckpointStore;
  cleanup?: () => Promise<void>;
}

const usage = (n: number) => ({ promptTokens: n, completionTokens: n, totalTokens: 2 * n, successfulRequests: n });

function crewCheckpoint(lineage: string, n: number, parentId?: string): Checkpoint {
  return {
    id: newCheckpointId(),
    lineage,
    branch: "main",
    ...(parentId ? { parentId } : {}),
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    event: "task_completed",
    kind: "crew",
    name: "research crew",
    inputs: { topic: "AI", n: 1 },
    progress: {
      tasks: Array.from({ length: n }, (_, i) => ({ index: i, taskId: `t${i}`, output: { description: `task ${i}`, raw: `out ${i}`, agent: "Writer" } })),
    },
    usage: usage(n),
  };
}

function flowCheckpoint(lineage: string, n: number, state: Record<string, unknown>, journal: FlowJournalEntry[], parentId?: string): Checkpoint {
  return {
    id: newCheckpointId(),
    lineage,
    branch: "main",
    ...(parentId ? { parentId } : {}),
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 1, n)).toISOString(),
    event: "method_execution_finished",
    kind: "flow",
    name: "LoopFlow",
    inputs: { id: "f1" },
    progress: { state: structuredClone(state), journal: journal.slice(), inFlight: ["b"], waiting: [{ method: "join", seen: ["a"] }] },
    usage: usage(0),
  };
}

/** The behaviour every CheckpointStore must show (SQLite, JSON, and any later backend). */
export function describeCheckpointStore(name: string, factory: () => CheckpointStoreFixture | Promise<CheckpointStoreFixture>): void {
  describe(`CheckpointStore conformance: ${name}`, () => {
    let fixture: CheckpointStoreFixture;
    let store: CheckpointStore;
    beforeEach(async () => {
      fixture = await factory();
      store = fixture.store;
    });
    afterEach(async () => {
      await store.close?.();
      await fixture.cleanup?.();
    });

    it("saves and loads a crew checkpoint with every field", async () => {
      const cp = crewCheckpoint("L1", 2);
      expect(await store.save(cp)).toBe(cp.id);
      expect(await store.load(cp.id)).toEqual(cp);
    });

    it("returns undefined for an unknown id", async () => {
      expect(await store.load("no-such-checkpoint")).toBeUndefined();
      await store.save(crewCheckpoint("L1", 1));
      expect(await store.load("no-such-checkpoint")).toBeUndefined();
    });

    it("restores each flow checkpoint of a lineage exactly, as state and journal grew", async () => {
      const journal: FlowJournalEntry[] = [];
      const state: Record<string, unknown> = { id: "f1", counter: 0, big: "x".repeat(100), gone: true };
      const saved: Checkpoint[] = [];
      for (let n = 1; n <= 6; n++) {
        state.counter = n;
        if (n === 3) delete state.gone;
        if (n === 4) state.added = { nested: [n] };
        journal.push({ method: n % 2 ? "step" : "route", result: n % 2 ? { n } : "again" });
        const cp = flowCheckpoint("F", n, state, journal, saved.at(-1)?.id);
        await store.save(cp);
        saved.push(cp);
      }
      for (const cp of saved) expect(await store.load(cp.id)).toEqual(cp);
      // A store opened afresh reads the same.
      const other = fixture.reopen();
      try {
        for (const cp of saved) expect(await other.load(cp.id)).toEqual(cp);
      } finally {
        await other.close?.();
      }
    });

    it("keeps interleaved runs apart: each lineage's checkpoints load as saved, and two stores starting runs at once do not mix them", async () => {
      const other = fixture.reopen();
      try {
        const saved: Checkpoint[] = [];
        const lastOf = new Map<string, Checkpoint>();
        const journals = new Map<string, FlowJournalEntry[]>();
        // Three runs written in turns, two through this store and one through another instance of the same data.
        for (let n = 1; n <= 4; n++) {
          for (const [lineage, target] of [["I1", store], ["I2", other], ["I3", store]] as const) {
            const journal = journals.get(lineage) ?? [];
            journals.set(lineage, journal);
            journal.push({ method: `${lineage}-${n}`, result: n });
            const cp = flowCheckpoint(lineage, n, { id: lineage, n, owner: lineage }, journal, lastOf.get(lineage)?.id);
            await target.save(cp);
            lastOf.set(lineage, cp);
            saved.push(cp);
          }
        }
        for (const cp of saved) expect(await store.load(cp.id)).toEqual(cp);
        expect((await other.list({ lineage: "I2" })).map((c) => c.id)).toEqual(saved.filter((c) => c.lineage === "I2").map((c) => c.id));
        await store.prune("I1", 1);
        expect((await store.list({ lineage: "I1" })).map((c) => c.id)).toEqual([lastOf.get("I1")!.id]);
        for (const cp of saved.filter((c) => c.lineage !== "I1")) expect(await store.load(cp.id)).toEqual(cp);
      } finally {
        await other.close?.();
      }
    });

    it("continues a lineage written by another store instance", async () => {
      const journal: FlowJournalEntry[] = [{ method: "a", result: 1 }];
      const first = flowCheckpoint("F2", 1, { id: "x", v: 1 }, journal);
      await store.save(first);
      const other = fixture.reopen();
      try {
        journal.push({ method: "b", result: 2 });
        const second = flowCheckpoint("F2", 2, { id: "x", v: 2 }, journal, first.id);
        await other.save(second);
        expect(await other.load(second.id)).toEqual(second);
        expect(await store.load(first.id)).toEqual(first);
      } finally {
        await other.close?.();
      }
    });

    it("lists headers oldest first, filtered by lineage, branch, kind and name", async () => {
      const a = crewCheckpoint("LA", 1);
      const b = crewCheckpoint("LA", 2, a.id);
      const c = { ...crewCheckpoint("LB", 3), branch: "experiment" };
      const f = flowCheckpoint("LF", 4, { id: "f" }, []);
      for (const cp of [b, a, c, f]) await store.save(cp);
      const all = await store.list();
      expect(all.map((x) => x.id)).toEqual([a.id, b.id, c.id, f.id]);
      expect(all[1]).toEqual({ id: b.id, lineage: "LA", branch: "main", parentId: a.id, createdAt: b.createdAt, event: "task_completed", kind: "crew", name: "research crew" });
      expect((await store.list({ lineage: "LA" })).map((x) => x.id)).toEqual([a.id, b.id]);
      expect((await store.list({ branch: "experiment" })).map((x) => x.id)).toEqual([c.id]);
      expect((await store.list({ kind: "flow" })).map((x) => x.id)).toEqual([f.id]);
      expect((await store.list({ name: "LoopFlow" })).map((x) => x.id)).toEqual([f.id]);
    });

    it("prunes the oldest checkpoints of one lineage only, and what is kept still loads whole", async () => {
      const journal: FlowJournalEntry[] = [];
      const state: Record<string, unknown> = { id: "p", fixed: "kept from the first step", n: 0 };
      const saved: Checkpoint[] = [];
      for (let n = 1; n <= 5; n++) {
        state.n = n;
        journal.push({ method: "step", result: n });
        const cp = flowCheckpoint("P", n, state, journal, saved.at(-1)?.id);
        await store.save(cp);
        saved.push(cp);
      }
      const other = crewCheckpoint("Q", 1);
      await store.save(other);
      await store.prune("P", 2);
      expect((await store.list({ lineage: "P" })).map((x) => x.id)).toEqual([saved[3]!.id, saved[4]!.id]);
      expect(await store.load(saved[0]!.id)).toBeUndefined();
      expect(await store.load(saved[3]!.id)).toEqual(saved[3]);
      expect(await store.load(saved[4]!.id)).toEqual(saved[4]);
      expect(await store.load(other.id)).toEqual(other);
      // Writing on after a prune keeps the lineage whole.
      journal.push({ method: "step", result: 6 });
      state.n = 6;
      const next = flowCheckpoint("P", 6, state, journal, saved[4]!.id);
      await store.save(next);
      expect(await store.load(next.id)).toEqual(next);
      await store.prune("P", 0);
      expect(await store.list({ lineage: "P" })).toEqual([]);
    });

    it("prunes a crew lineage, and the checkpoints kept still load with the run's inputs", async () => {
      const saved: Checkpoint[] = [];
      for (let n = 1; n <= 4; n++) {
        const cp = crewCheckpoint("C", n, saved.at(-1)?.id);
        await store.save(cp);
        saved.push(cp);
      }
      await store.prune("C", 2);
      expect((await store.list({ lineage: "C" })).map((x) => x.id)).toEqual([saved[2]!.id, saved[3]!.id]);
      expect(await store.load(saved[2]!.id)).toEqual(saved[2]);
      expect(await store.load(saved[3]!.id)).toEqual(saved[3]);
      const next = crewCheckpoint("C", 5, saved[3]!.id);
      await store.save(next);
      expect(await store.load(next.id)).toEqual(next);
    });

    it("prunes nothing from an empty store", async () => {
      await store.prune("nothing", 3);
      expect(await store.list()).toEqual([]);
    });
  });
}
