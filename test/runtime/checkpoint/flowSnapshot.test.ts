import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SQLiteCheckpointStore } from "../../../src/runtime/checkpoint/SQLiteCheckpointStore.js";
import { newCheckpointId } from "../../../src/runtime/checkpoint/checkpointStores.js";
import { copyFlowState, flowProgressSnapshot, journalLength, journalSlice } from "../../../src/runtime/checkpoint/flowSnapshot.js";
import type { Checkpoint, FlowJournalEntry } from "../../../src/runtime/checkpoint/types.js";

const usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0, successfulRequests: 0 };

describe("flow progress snapshots", () => {
  it("keep the journal as it was when taken, while the run's journal grows", () => {
    const journal: FlowJournalEntry[] = [{ method: "a", result: 1 }];
    const progress = flowProgressSnapshot({ n: 1 }, journal, { inFlight: ["b"], waiting: [] });
    journal.push({ method: "b", result: 2 });
    expect(journalLength(progress)).toBe(1);
    expect(journalSlice(progress, 0)).toEqual([{ method: "a", result: 1 }]);
    expect(progress.journal).toEqual([{ method: "a", result: 1 }]);
    // Serialized and spread like any object (the JSON and Postgres stores, structuredClone).
    expect(JSON.parse(JSON.stringify(progress))).toEqual({ state: { n: 1 }, journal: [{ method: "a", result: 1 }], inFlight: ["b"], waiting: [] });
    expect({ ...progress }.journal).toHaveLength(1);
    expect(structuredClone(progress).journal).toHaveLength(1);
  });

  it("copy the state: objects deep, primitives as they are, functions left out", () => {
    const state: Record<string, unknown> = { id: "x", list: [1, { deep: true }], text: "t", when: new Date(0), fn: () => 1 };
    const copy = copyFlowState(state);
    (state.list as unknown[]).push(3);
    ((state.list as unknown[])[1] as { deep: boolean }).deep = false;
    expect(copy).toEqual({ id: "x", list: [1, { deep: true }], text: "t", when: new Date(0) });
    expect("fn" in copy).toBe(false);
  });

  it("are written by the SQLite store as of the snapshot, though the journal grew before the write", async () => {
    const dir = await mkdtemp(join(tmpdir(), "crewts-snap-"));
    const store = new SQLiteCheckpointStore(join(dir, "checkpoints.db"));
    try {
      const journal: FlowJournalEntry[] = [];
      const saved: Checkpoint[] = [];
      const make = (n: number): Checkpoint => ({
        id: newCheckpointId(),
        lineage: "S",
        branch: "main",
        ...(saved.length > 0 ? { parentId: saved.at(-1)!.id } : {}),
        createdAt: new Date().toISOString(),
        event: "method_execution_finished",
        kind: "flow",
        name: "Loop",
        inputs: { topic: "tides" },
        progress: flowProgressSnapshot({ n, same: "unchanged", obj: { n } }, journal, { inFlight: [], waiting: [] }),
        usage,
      });
      for (let n = 1; n <= 4; n++) {
        journal.push({ method: "step", result: n });
        const cp = make(n);
        // The next method finished before this checkpoint's write ran.
        journal.push({ method: "next", result: n });
        await store.save(cp);
        saved.push(cp);
      }
      for (const [i, cp] of saved.entries()) {
        const loaded = await store.load(cp.id);
        expect(loaded?.progress).toEqual({ state: { n: i + 1, same: "unchanged", obj: { n: i + 1 } }, journal: journal.slice(0, 2 * i + 1), inFlight: [], waiting: [] });
        expect(loaded?.inputs).toEqual({ topic: "tides" });
      }
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
