import { randomUUID } from "node:crypto";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { PostgresFlowPersistence } from "../../../src/stores/postgres/PostgresFlowPersistence.js";
import { PostgresStoreError } from "../../../src/stores/postgres/PostgresDatabase.js";
import { PostgresTaskOutputStore } from "../../../src/stores/postgres/PostgresTaskOutputStore.js";
import { checkpointStoreFor, loadCheckpoint } from "../../../src/runtime/checkpoint/checkpointStores.js";
import { PostgresCheckpointStore } from "../../../src/stores/postgres/PostgresCheckpointStore.js";
import { describeFlowPersistence } from "../../flow/flowPersistenceConformance.js";
import { describeCheckpointStore } from "../../runtime/checkpoint/checkpointStoreConformance.js";
import { describeTaskOutputStore } from "../../storage/taskOutputStoreConformance.js";
import { usePostgres } from "./testPostgres.js";

// A real Postgres from scripts/services.sh, started for this file and stopped after it.
const postgres = usePostgres();

describeCheckpointStore("PostgresCheckpointStore", async () => {
  // Each test its own database: the suite lists every checkpoint of the store.
  const db = await postgres.newDatabase("cp");
  return { store: new PostgresCheckpointStore({ url: db.url }), reopen: () => new PostgresCheckpointStore({ url: db.url }) };
});

describeFlowPersistence("PostgresFlowPersistence", () => new PostgresFlowPersistence({ url: postgres.url }));

describeTaskOutputStore(
  "PostgresTaskOutputStore",
  () => {
    // Each test its own scope: a fresh, empty store on the shared database.
    const scope = randomUUID();
    return { store: new PostgresTaskOutputStore({ url: postgres.url, scope }), reopen: () => new PostgresTaskOutputStore({ url: postgres.url, scope }) };
  },
  { durable: true },
);

describe("Postgres stores", () => {
  it("keep flow states across instances, as another process would see them", async () => {
    const flowId = randomUUID();
    const first = new PostgresFlowPersistence({ url: postgres.url });
    await first.saveState(flowId, "step", { id: flowId, n: 1 });
    await first.close();
    const second = new PostgresFlowPersistence({ url: postgres.url });
    expect(await second.loadState(flowId)).toEqual({ id: flowId, n: 1 });
    await second.close();
  });

  it("keep task outputs of different scopes apart", async () => {
    const a = new PostgresTaskOutputStore({ url: postgres.url, scope: `a-${randomUUID()}` });
    const b = new PostgresTaskOutputStore({ url: postgres.url, scope: `b-${randomUUID()}` });
    await a.add({ taskId: "t", expectedOutput: "e", output: { raw: "from a" }, taskIndex: 0 });
    expect(await b.loadAll()).toEqual([]);
    await b.reset();
    expect(await a.loadAll()).toHaveLength(1);
    await Promise.all([a.close(), b.close()]);
  });

  it("record their schema version once, however many stores start together", async () => {
    const stores = Array.from({ length: 5 }, () => new PostgresFlowPersistence({ url: postgres.url }));
    await Promise.all(stores.map((s, i) => s.saveState(`concurrent-${i}`, "m", { i })));
    await Promise.all(stores.map((s) => s.close()));
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    try {
      const rows = (await client.query("SELECT component, version FROM crewts_schema_version WHERE component <> 'checkpoints' ORDER BY component")).rows;
      expect(rows).toEqual([
        { component: "flow_states", version: 1 },
        { component: "task_outputs", version: 1 },
      ]);
    } finally {
      await client.end();
    }
  });

  it("refuse a database whose schema is newer than this crewts knows, saying what to do", async () => {
    const db = await postgres.newDatabase("newer");
    const other = new pg.Client({ connectionString: db.url });
    await other.connect();
    await other.query("CREATE TABLE crewts_schema_version (component TEXT PRIMARY KEY, version INTEGER NOT NULL, updated_at TIMESTAMPTZ NOT NULL DEFAULT now())");
    await other.query("INSERT INTO crewts_schema_version VALUES ('flow_states', 99)");
    await other.end();
    const store = new PostgresFlowPersistence({ url: db.url });
    try {
      const error = await store.loadState("x").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PostgresStoreError);
      expect((error as Error).message).toMatch(/schema version 99, newer than this crewts knows \(1\)\. Update crewts/);
    } finally {
      await store.close();
      await db.drop();
    }
  });

  it("name an unreachable server without its password", async () => {
    const store = new PostgresTaskOutputStore({ url: "postgres://crewts:hunter2@127.0.0.1:1/crewts" });
    const error = await store.loadAll().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PostgresStoreError);
    expect((error as Error).message).toMatch(/Could not connect to Postgres at postgres:\/\/crewts:\*\*\*@127\.0\.0\.1:1\/crewts/);
    expect((error as Error).message).not.toMatch(/hunter2/);
    await store.close();
  });

  it("hold the default checkpoints when CREWTS_DATABASE_URL is set, found by id without a location", async () => {
    const saved = process.env.CREWTS_DATABASE_URL;
    process.env.CREWTS_DATABASE_URL = postgres.url;
    try {
      const store = checkpointStoreFor({ onEvents: ["task_completed"] });
      const lineage = randomUUID();
      const id = await store.save({
        id: `cp-${lineage}`, lineage, branch: "main", createdAt: new Date().toISOString(), event: "task_completed", kind: "crew", name: "writers",
        inputs: { topic: "AI" }, progress: { tasks: [] }, usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, successfulRequests: 0 },
      });
      // Written to Postgres: another store on the database reads it.
      const direct = new PostgresCheckpointStore({ url: postgres.url });
      expect((await direct.list({ lineage })).map((cp) => cp.id)).toEqual([id]);
      await direct.close();
      expect((await loadCheckpoint(id)).inputs).toEqual({ topic: "AI" });
      // A location or provider given keeps the file stores.
      expect(checkpointStoreFor({ provider: "sqlite" })).not.toBe(store);
    } finally {
      if (saved === undefined) delete process.env.CREWTS_DATABASE_URL;
      else process.env.CREWTS_DATABASE_URL = saved;
    }
  });

  it("need a URL: the option or CREWTS_DATABASE_URL", () => {
    const saved = process.env.CREWTS_DATABASE_URL;
    delete process.env.CREWTS_DATABASE_URL;
    try {
      expect(() => new PostgresFlowPersistence()).toThrow(/set CREWTS_DATABASE_URL/);
      expect(() => new PostgresCheckpointStore()).toThrow(/PostgresCheckpointStore needs a database URL/);
      expect(() => new PostgresFlowPersistence({ url: "mysql://x" })).toThrow(PostgresStoreError);
    } finally {
      if (saved !== undefined) process.env.CREWTS_DATABASE_URL = saved;
    }
  });
});
