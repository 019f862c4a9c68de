import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SQLiteTaskOutputStore, TASK_OUTPUTS_DB_FILE } from "../../src/storage/SQLiteTaskOutputStore.js";
import { InMemoryTaskOutputStore, TaskOutputStoreError } from "../../src/storage/TaskOutputStore.js";
import { describeTaskOutputStore } from "./taskOutputStoreConformance.js";

let root: string;
const previousStorageDir = process.env.CREWTS_STORAGE_DIR;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "crewts-task-outputs-"));
  process.env.CREWTS_STORAGE_DIR = join(root, "storage");
});

afterAll(async () => {
  if (previousStorageDir === undefined) delete process.env.CREWTS_STORAGE_DIR;
  else process.env.CREWTS_STORAGE_DIR = previousStorageDir;
  await rm(root, { recursive: true, force: true });
});

describeTaskOutputStore("InMemoryTaskOutputStore", () => ({ store: new InMemoryTaskOutputStore() }));

describeTaskOutputStore("SQLiteTaskOutputStore (file)", async () => {
  const dir = await mkdtemp(join(root, "db "));
  // A path with spaces and a '#' must still be a plain file path, not URL syntax.
  const path = join(dir, "nested #1", "outputs.db");
  return {
    store: new SQLiteTaskOutputStore(path),
    reopen: () => new SQLiteTaskOutputStore(path),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}, { durable: true });

describeTaskOutputStore("SQLiteTaskOutputStore (:memory:)", () => ({ store: new SQLiteTaskOutputStore(":memory:") }));

describe("SQLiteTaskOutputStore", () => {
  it("uses latest_kickoff_task_outputs.db in the storage directory by default, created on first use", async () => {
    const storage = join(root, "default-storage");
    process.env.CREWTS_STORAGE_DIR = storage;
    const store = new SQLiteTaskOutputStore();
    try {
      expect(existsSync(join(storage, TASK_OUTPUTS_DB_FILE))).toBe(false);
      await store.add({ taskId: "t", expectedOutput: "e", output: { raw: "r" }, taskIndex: 0 });
      expect(existsSync(join(storage, TASK_OUTPUTS_DB_FILE))).toBe(true);
    } finally {
      await store.close();
      process.env.CREWTS_STORAGE_DIR = join(root, "storage");
    }
  });

  it("reports an unusable database file as a TaskOutputStoreError and recovers once it is fixed", async () => {
    const dir = await mkdtemp(join(root, "broken-"));
    const path = join(dir, "not-a-db.db");
    await writeFile(path, "this is not a SQLite database, just text long enough to have a header".repeat(20));
    const store = new SQLiteTaskOutputStore(path);
    try {
      const error = await store.loadAll().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TaskOutputStoreError);
      expect((error as Error).message).toMatch(/task output database: .*not-a-db\.db is not a SQLite database.*Move it away or delete it/s);
      await rm(path);
      expect(await store.loadAll()).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
