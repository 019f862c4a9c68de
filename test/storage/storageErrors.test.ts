import { spawn } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SQLiteFlowPersistence } from "../../src/flow/index.js";
import { SQLiteSearchStore } from "../../src/knowledge/store/SQLiteSearchStore.js";
import { LongTermMemory } from "../../src/memory/LongTermMemory.js";
import { sweepIdleConnections } from "../../src/storage/connectionPool.js";
import { SQLiteDatabase } from "../../src/storage/SQLiteDatabase.js";
import { SQLiteTaskOutputStore } from "../../src/storage/SQLiteTaskOutputStore.js";
import { StorageError } from "../../src/storage/StorageError.js";
import { TaskOutputStoreError } from "../../src/storage/TaskOutputStore.js";
import { childOutput } from "../fixtures/childOutput.js";

const root = mkdtempSync(join(tmpdir(), "crewts-storage-errors-"));
let folders = 0;
const newFolder = () => {
  const dir = join(root, `case-${folders++}`);
  mkdirSync(dir);
  return dir;
};

const closing: { close(): Promise<void> }[] = [];
const track = <T extends { close(): Promise<void> }>(store: T): T => {
  closing.push(store);
  return store;
};
afterEach(async () => {
  await Promise.all(closing.splice(0).map((store) => store.close().catch(() => undefined)));
});

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

function expectStorageError(error: unknown, code: string, path: string, fix: RegExp): void {
  expect(error, String(error)).toBeInstanceOf(StorageError);
  expect((error as StorageError).code).toBe(code);
  expect((error as StorageError).path).toBe(path);
  expect((error as Error).message).toContain(path);
  expect((error as Error).message).toMatch(fix);
  expect((error as Error).message).not.toContain("\n");
}

describe("storage errors", () => {
  it("names a file of garbage bytes as corrupt, in every store, and says to move or delete it", async () => {
    const dir = newFolder();
    const garbage = (name: string) => {
      const file = join(dir, name);
      writeFileSync(file, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251)));
      return file;
    };
    const fix = /Move it away or delete it/;
    const flows = track(new SQLiteFlowPersistence(garbage("flows.db")));
    expectStorageError(await failure(flows.loadState("flow-1")), "corrupt", join(dir, "flows.db"), fix);
    expectStorageError(await failure(flows.saveState("flow-1", "step", {})), "corrupt", join(dir, "flows.db"), fix);

    const outputs = track(new SQLiteTaskOutputStore(garbage("outputs.db")));
    const listed = await failure(outputs.loadAll());
    expect(listed).toBeInstanceOf(TaskOutputStoreError);
    expectStorageError((listed as Error).cause, "corrupt", join(dir, "outputs.db"), fix);
    expect((listed as Error).message).toContain(join(dir, "outputs.db"));

    const search = track(new SQLiteSearchStore({ path: garbage("search.db") }));
    expectStorageError(await failure(search.search("rockets")), "corrupt", join(dir, "search.db"), fix);
    expectStorageError(await failure(search.upsert([{ id: "a", content: "rockets" }])), "corrupt", join(dir, "search.db"), fix);

    const lessons = track(new LongTermMemory({ path: garbage("long.db") }));
    expectStorageError(await failure(lessons.search("rockets")), "corrupt", join(dir, "long.db"), fix);
  });

  it("names the file that stands where the storage folder should be, and reads a missing folder as empty without making it", async () => {
    const dir = newFolder();
    writeFileSync(join(dir, "a-file"), "");
    const file = join(dir, "a-file", "flows.db");
    const flows = track(new SQLiteFlowPersistence(file));
    const fix = /its folder .*a-file does not exist and could not be created \(.*a-file is a file, not a folder\).*CREWTS_STORAGE_DIR/;
    expectStorageError(await failure(flows.saveState("flow-1", "step", {})), "cannot-open", file, fix);
    expectStorageError(await failure(flows.loadState("flow-1")), "cannot-open", file, fix);
    const listed = await failure(track(new SQLiteTaskOutputStore(join(dir, "a-file", "outputs.db"))).loadAll());
    expect(listed).toBeInstanceOf(TaskOutputStoreError);
    expect((listed as Error).message).toMatch(/Could not load task outputs .*a-file is a file, not a folder/);

    // A missing file in a folder that does not exist yet holds nothing: reading makes neither.
    const later = join(dir, "not-yet", "flows.db");
    expect(await track(new SQLiteFlowPersistence(later)).loadState("flow-1")).toBeUndefined();
    expect(await track(new SQLiteTaskOutputStore(join(dir, "not-yet", "outputs.db"))).loadAll()).toEqual([]);
    expect(await track(new SQLiteSearchStore({ path: join(dir, "not-yet", "search.db") })).search("anything")).toEqual([]);
    expect(await track(new LongTermMemory({ path: join(dir, "not-yet", "long.db") })).search("anything")).toEqual([]);
    expect(existsSync(join(dir, "not-yet"))).toBe(false);
  });

  it("reads a 0444 file and files in a 0555 folder without write access, and names them when writing", async () => {
    const dir = newFolder();
    const flows = (folder: string) => track(new SQLiteFlowPersistence(join(dir, folder, "flows.db")));
    await flows("ro-file").saveState("flow-1", "step", { n: 1 });
    await flows("ro-dir").saveState("flow-1", "step", { n: 1 });
    await track(new SQLiteTaskOutputStore(join(dir, "ro-dir", "outputs.db"))).add({ taskId: "t1", expectedOutput: "e", output: { raw: "r" }, taskIndex: 0 });
    await Promise.all(closing.splice(0).map((store) => store.close()));
    sweepIdleConnections();
    sweepIdleConnections();
    chmodSync(join(dir, "ro-file", "flows.db"), 0o444);
    chmodSync(join(dir, "ro-dir"), 0o555);

    // Root may write any file: the check runs as an unprivileged user then, in a child process.
    const asRoot = process.getuid?.() === 0;
    if (asRoot) {
      chmodSync(root, 0o755);
      chmodSync(dir, 0o755);
      chownSync(join(dir, "ro-file"), 65534, 65534);
    }
    const child = spawn(process.execPath, ["--import", "tsx", join(import.meta.dirname, "fixtures/readOnlyStorage.ts"), dir], {
      stdio: ["ignore", "pipe", "pipe"],
      ...(asRoot ? { uid: 65534, gid: 65534, env: { ...process.env, HOME: dir } } : {}),
    });
    const { code, stdout, stderr } = await childOutput(child);
    expect(code, stderr).toBe(0);
    const results = JSON.parse(stdout) as Record<string, { value?: unknown; error?: { name: string; code: string; path: string; message: string } } | boolean>;
    const value = (name: string) => (results[name] as { value?: unknown }).value;
    const error = (name: string) => (results[name] as { error?: { name: string; code: string; path: string; message: string } }).error;

    expect(value("fileLoad")).toEqual({ n: 1 });
    expect(value("folderLoad")).toEqual({ n: 1 });
    expect(value("folderOutputs")).toEqual(["t1"]);
    expect(value("missingLoad")).toBeNull();
    expect(results.missingCreated).toBe(false);
    expect(value("defaultLoad")).toBeNull();
    expect(results.defaultFolderCreated).toBe(false);
    for (const [name, file] of [
      ["fileSave", join(dir, "ro-file", "flows.db")],
      ["folderSave", join(dir, "ro-dir", "flows.db")],
      ["missingSave", join(dir, "ro-dir", "missing.db")],
      ["defaultSave", join(dir, "ro-dir", "storage", "flow_states.db")],
    ] as const) {
      const thrown = error(name);
      expect(thrown?.name, `${name}: ${JSON.stringify(results[name])}`).toBe("StorageError");
      expect(thrown?.path).toBe(file);
      expect(thrown?.message).toContain(file);
      expect(thrown?.code).toBe("read-only");
      expect(thrown?.message).toMatch(/permissions.*CREWTS_STORAGE_DIR to a writable folder/);
    }
  });

  it("names the row and the file of saved JSON that does not parse, and says what to do", async () => {
    const dir = newFolder();
    const corrupt = async (file: string, sql: string) => {
      const db = track(new SQLiteDatabase(() => file, []));
      await db.use((prepare) => prepare(sql).run());
    };

    const flowsFile = join(dir, "flows.db");
    const flows = track(new SQLiteFlowPersistence(flowsFile));
    await flows.saveState("flow-1", "step", { n: 1 });
    await corrupt(flowsFile, "UPDATE flow_states SET state_json = '{\"n\": 1' WHERE flow_uuid = 'flow-1'");
    expectStorageError(await failure(flows.loadState("flow-1")), "bad-json", flowsFile, /saved state of flow "flow-1" \(table flow_states, row id 1\).*Delete that row or the file/);

    const outputsFile = join(dir, "outputs.db");
    const outputs = track(new SQLiteTaskOutputStore(outputsFile));
    await outputs.add({ taskId: "t1", expectedOutput: "e", output: { raw: "r" }, taskIndex: 0 });
    await corrupt(outputsFile, "UPDATE latest_kickoff_task_outputs SET output = 'not json'");
    const listed = await failure(outputs.loadAll());
    expect(listed).toBeInstanceOf(TaskOutputStoreError);
    expectStorageError((listed as Error).cause, "bad-json", outputsFile, /output of the stored task output 0.*crewts reset-memories -k/);

    const longFile = join(dir, "long.db");
    const lessons = track(new LongTermMemory({ path: longFile }));
    await lessons.save("Give the thrust in kilonewtons", { taskDescription: "Describe the rocket engine" });
    await lessons.flush();
    await corrupt(longFile, "UPDATE long_term_memories SET suggestions = '[\"unterminated'");
    expectStorageError(await failure(lessons.search("rocket engine")), "bad-json", longFile, /suggestions of long-term memory .*reset-memories -l/);

    const searchFile = join(dir, "search.db");
    const search = track(new SQLiteSearchStore({ path: searchFile }));
    await search.upsert([{ id: "d1", content: "rockets need thrust" }]);
    await corrupt(searchFile, "UPDATE documents SET metadata = '{oops'");
    expectStorageError(await failure(search.search("thrust")), "bad-json", searchFile, /metadata of document "d1" \(collection "knowledge", table documents\)/);
    expectStorageError(await failure(search.get(["d1"])), "bad-json", searchFile, /Delete that document/);
  });
});
