import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "libsql";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SQLiteCheckpointStore } from "../../src/runtime/checkpoint/SQLiteCheckpointStore.js";
import { flowProgressSnapshot } from "../../src/runtime/checkpoint/flowSnapshot.js";
import { newCheckpointId } from "../../src/runtime/checkpoint/checkpointStores.js";
import type { Checkpoint, FlowJournalEntry } from "../../src/runtime/checkpoint/types.js";
import { checkpointsSettled } from "../../src/storage/walCheckpointer.js";

const usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0, successfulRequests: 0 };

function checkpoint(lineage: string, n: number, journal: FlowJournalEntry[], parentId: string | undefined): Checkpoint {
  return {
    id: newCheckpointId(),
    lineage,
    branch: "main",
    ...(parentId ? { parentId } : {}),
    createdAt: new Date().toISOString(),
    event: "method_execution_finished",
    kind: "flow",
    name: "Loop",
    inputs: {},
    progress: flowProgressSnapshot({ n, text: `${n}`.padStart(2000, "t") }, journal, { inFlight: [], waiting: [] }),
    usage,
  };
}

describe("log checkpoints on the worker thread", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "crewts-wal-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("folds the checkpoint store's write-ahead log into the database while the writes go on", async () => {
    const file = join(dir, "checkpoints.db");
    const store = new SQLiteCheckpointStore(file);
    const journal: FlowJournalEntry[] = [];
    let parent: string | undefined;
    for (let n = 1; n <= 600; n++) {
      journal.push({ method: "step", result: n });
      parent = await store.save(checkpoint("W", n, journal, parent));
    }
    // The writing connection checkpoints nothing itself (wal_autocheckpoint 0): pages reach the database
    // file only through the worker's checkpoints.
    await checkpointsSettled();
    const db = new Database(file, { readonly: true });
    try {
      const pages = (db.prepare("PRAGMA page_count").get() as { page_count: number }).page_count;
      expect(statSync(file).size).toBeGreaterThan(pages * 4096 * 0.5);
    } finally {
      db.close();
    }
    // Every checkpoint still loads whole.
    const last = await store.load(parent!);
    expect(last?.progress).toMatchObject({ state: { n: 600 } });
    expect((last?.progress as { journal: FlowJournalEntry[] }).journal).toHaveLength(600);
    await store.close();
  });

  it("does not keep a finished program alive", async () => {
    const child = join(import.meta.dirname, "fixtures", "loopingCheckpoints.ts");
    const proc = spawn(process.execPath, ["--import", "tsx", child, join(dir, "cps"), "400"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    proc.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    proc.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => proc.on("exit", resolve));
    expect(err).not.toMatch(/Error/);
    expect(code).toBe(0);
    expect(out).toContain("DONE");
    const db = new Database(join(dir, "cps", "checkpoints.db"), { readonly: true });
    try {
      expect((db.prepare("SELECT count(*) AS n FROM checkpoint_log").get() as { n: number }).n).toBe(800);
    } finally {
      db.close();
    }
  }, 60_000);
});
