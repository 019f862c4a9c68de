import pg from "pg";
import { describe, expect, it } from "vitest";
import { newCheckpointId } from "../../../src/runtime/checkpoint/checkpointStores.js";
import type { Checkpoint } from "../../../src/runtime/checkpoint/types.js";
import { PostgresCheckpointStore } from "../../../src/stores/postgres/PostgresCheckpointStore.js";
import { usePostgres } from "./testPostgres.js";

// A real Postgres from scripts/services.sh, started for this file and stopped after it.
const postgres = usePostgres();

const usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0, successfulRequests: 0 };

function flowCheckpoint(n: number, parentId?: string): Checkpoint {
  return {
    id: newCheckpointId(),
    lineage: "L",
    branch: "main",
    ...(parentId ? { parentId } : {}),
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    event: "method_execution_finished",
    kind: "flow",
    name: "Loop",
    inputs: { topic: "tides" },
    progress: { state: { n, fixed: "x".repeat(2000) }, journal: Array.from({ length: n }, (_, i) => ({ method: "step", result: i + 1 })), inFlight: [], waiting: [] },
    usage,
  };
}

describe("PostgresCheckpointStore flow deltas", () => {
  it("stores what changed per step, and continues a lineage written whole by schema version 1", async () => {
    const db = await postgres.newDatabase("cpv1");
    const dbUrl = db.url;
    const client = new pg.Client({ connectionString: dbUrl });
    await client.connect();
    const store = new PostgresCheckpointStore({ url: dbUrl });
    try {
      // A checkpoint written before deltas: the version 1 table, the row whole.
      await client.query("CREATE TABLE crewts_schema_version (component TEXT PRIMARY KEY, version INTEGER NOT NULL, updated_at TIMESTAMPTZ NOT NULL DEFAULT now())");
      await client.query("INSERT INTO crewts_schema_version VALUES ('checkpoints', 1)");
      await client.query(`CREATE TABLE crewts_checkpoints (seq BIGSERIAL PRIMARY KEY, id TEXT NOT NULL UNIQUE, lineage TEXT NOT NULL, branch TEXT NOT NULL,
        parent_id TEXT, created_at TEXT NOT NULL, event TEXT NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL, inputs JSON NOT NULL, progress JSON NOT NULL, usage JSON NOT NULL)`);
      const old = flowCheckpoint(1);
      await client.query(
        "INSERT INTO crewts_checkpoints (id, lineage, branch, parent_id, created_at, event, kind, name, inputs, progress, usage) VALUES ($1, $2, $3, NULL, $4, $5, $6, $7, $8, $9, $10)",
        [old.id, old.lineage, old.branch, old.createdAt, old.event, old.kind, old.name, JSON.stringify(old.inputs), JSON.stringify(old.progress), JSON.stringify(old.usage)],
      );
      const saved = [old];
      for (let n = 2; n <= 4; n++) {
        const cp = flowCheckpoint(n, saved.at(-1)!.id);
        await store.save(cp);
        saved.push(cp);
      }
      for (const cp of saved) expect(await store.load(cp.id)).toEqual(cp);
      // The rows after the first hold only the journal entry and the key that changed.
      const rows = await client.query<{ delta: string | null; inputs: unknown }>("SELECT delta, inputs FROM crewts_checkpoints ORDER BY seq");
      expect(rows.rows.slice(1).map((r) => r.inputs)).toEqual([null, null, null]);
      for (const [i, r] of rows.rows.slice(1).entries()) expect(JSON.parse(r.delta!)).toEqual({ j: [{ method: "step", result: i + 2 }], s: { n: i + 2 } });
      // Pruned to two, the oldest kept becomes a base and both still load whole.
      await store.prune("L", 2);
      expect((await store.list({ lineage: "L" })).map((x) => x.id)).toEqual([saved[2]!.id, saved[3]!.id]);
      for (const cp of saved.slice(2)) expect(await store.load(cp.id)).toEqual(cp);
      // Another store (another worker) continues the lineage with a delta.
      const other = new PostgresCheckpointStore({ url: dbUrl });
      try {
        const next = flowCheckpoint(5, saved[3]!.id);
        await other.save(next);
        expect(await other.load(next.id)).toEqual(next);
        const last = await client.query<{ delta: string }>("SELECT delta FROM crewts_checkpoints ORDER BY seq DESC LIMIT 1");
        expect(JSON.parse(last.rows[0]!.delta)).toEqual({ j: [{ method: "step", result: 5 }], s: { n: 5 } });
      } finally {
        await other.close();
      }
    } finally {
      await store.close();
      await client.end();
      await db.drop();
    }
  }, 60_000);
});
