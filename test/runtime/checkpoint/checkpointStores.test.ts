import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JSONCheckpointStore } from "../../../src/runtime/checkpoint/JSONCheckpointStore.js";
import { SQLiteCheckpointStore } from "../../../src/runtime/checkpoint/SQLiteCheckpointStore.js";
import { describeCheckpointStore } from "./checkpointStoreConformance.js";

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), "crewts-cp-"));
}

describeCheckpointStore("SQLite", async () => {
  const dir = await tempDir();
  const file = join(dir, "checkpoints.db");
  return { store: new SQLiteCheckpointStore(file), reopen: () => new SQLiteCheckpointStore(file), cleanup: () => rm(dir, { recursive: true, force: true }) };
});

describeCheckpointStore("JSON", async () => {
  const dir = await tempDir();
  return { store: new JSONCheckpointStore(dir), reopen: () => new JSONCheckpointStore(dir), cleanup: () => rm(dir, { recursive: true, force: true }) };
});
