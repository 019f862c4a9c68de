import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SQLiteFlowPersistence } from "../../src/flow/index.js";
import { SQLiteSearchStore } from "../../src/knowledge/store/SQLiteSearchStore.js";
import { Knowledge } from "../../src/knowledge/Knowledge.js";
import { StringKnowledgeSource } from "../../src/knowledge/sources/StringKnowledgeSource.js";
import { EntityMemory } from "../../src/memory/EntityMemory.js";
import { LongTermMemory } from "../../src/memory/LongTermMemory.js";
import { ShortTermMemory } from "../../src/memory/ShortTermMemory.js";
import { DEFAULT_IDLE_MS, openConnectionCount, setIdleTime, sweepIdleConnections } from "../../src/storage/connectionPool.js";
import { SQLiteDatabase } from "../../src/storage/SQLiteDatabase.js";
import { SQLiteTaskOutputStore } from "../../src/storage/SQLiteTaskOutputStore.js";

const root = mkdtempSync(join(tmpdir(), "crewts-pool-"));
let files = 0;
const newFile = () => join(root, `db-${files++}.db`);

/** File descriptors of this process open on `file` itself (not its -wal and -shm); undefined where /proc is missing. */
function openDescriptors(file: string): number | undefined {
  if (!existsSync("/proc/self/fd")) return undefined;
  let count = 0;
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === file) count++;
    } catch {
      // The descriptor readdir itself used is gone by now.
    }
  }
  return count;
}

function expectDescriptors(file: string, count: number): void {
  const open = openDescriptors(file);
  if (open !== undefined) expect(open).toBe(count);
}

/** Closes every pooled connection that is not in a transaction (a sweep forgets use, the next closes). */
function closeIdle(): void {
  sweepIdleConnections();
  sweepIdleConnections();
}

const log = (db: SQLiteDatabase) => db.use((prepare) => (prepare("SELECT what FROM log ORDER BY rowid").all() as { what: string }[]).map((r) => r.what));
const LOG_SETUP = ["CREATE TABLE IF NOT EXISTS log (what TEXT NOT NULL)"];

const closing: { close(): Promise<void> }[] = [];
const track = <T extends { close(): Promise<void> }>(store: T): T => {
  closing.push(store);
  return store;
};
afterEach(async () => {
  vi.useRealTimers();
  setIdleTime(DEFAULT_IDLE_MS);
  await Promise.all(closing.splice(0).map((store) => store.close()));
  // Each test starts with no connection open.
  closeIdle();
});

describe("the SQLite connection pool", () => {
  it("gives two stores on one file one connection, closed by the next sweep once the last of them closed", async () => {
    const file = newFile();
    const before = openConnectionCount();
    const first = track(new SQLiteTaskOutputStore(file));
    const second = track(new SQLiteTaskOutputStore(file));
    await first.add({ taskId: "a", expectedOutput: "e", output: { raw: "one" }, taskIndex: 0 });
    await second.add({ taskId: "b", expectedOutput: "e", output: { raw: "two" }, taskIndex: 1 });
    expect(openConnectionCount()).toBe(before + 1);
    expectDescriptors(file, 1);

    await first.close();
    expect(openConnectionCount()).toBe(before + 1);
    expect((await second.loadAll()).map((r) => r.taskId)).toEqual(["a", "b"]);
    await second.close();
    expect(openConnectionCount()).toBe(before + 1);
    closeIdle();
    expect(openConnectionCount()).toBe(before);
    // A closed store opens the file again on its next call.
    expect(await first.loadAll()).toHaveLength(2);
  });

  it("closes a connection left idle between two sweeps, on an unref'd timer, and never one in a transaction", async () => {
    vi.useFakeTimers();
    // Restarts the sweep timer under the fake clock.
    setIdleTime(DEFAULT_IDLE_MS);
    const file = newFile();
    const db = track(new SQLiteDatabase(() => file, LOG_SETUP));
    const before = openConnectionCount();
    await db.use((prepare) => prepare("INSERT INTO log VALUES ('kept')").run());
    expect(openConnectionCount()).toBe(before + 1);
    vi.advanceTimersByTime(DEFAULT_IDLE_MS);
    expect(openConnectionCount()).toBe(before + 1);
    vi.advanceTimersByTime(DEFAULT_IDLE_MS);
    expect(openConnectionCount()).toBe(before);

    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const transaction = db.transaction(async (prepare) => {
      prepare("INSERT INTO log VALUES ('in a transaction')").run();
      await gate;
      prepare("INSERT INTO log VALUES ('after the sweeps')").run();
    });
    await vi.waitFor(() => expect(openConnectionCount()).toBe(before + 1));
    closeIdle();
    vi.advanceTimersByTime(10 * DEFAULT_IDLE_MS);
    expect(openConnectionCount()).toBe(before + 1);
    release();
    await transaction;
    expect(await log(db)).toEqual(["kept", "in a transaction", "after the sweeps"]);
  });

  it("keeps every store working after its connection was closed under it", async () => {
    const dir = mkdtempSync(join(root, "stores-"));
    const outputs = track(new SQLiteTaskOutputStore(join(dir, "outputs.db")));
    const flows = track(new SQLiteFlowPersistence(join(dir, "flows.db")));
    const search = track(new SQLiteSearchStore({ path: join(dir, "search.db") }));
    const lessons = track(new LongTermMemory({ path: join(dir, "long.db") }));

    await outputs.add({ taskId: "t", expectedOutput: "e", output: { raw: "r" }, taskIndex: 0 });
    await flows.saveState("flow-1", "step", { n: 1 });
    await search.upsert([{ id: "d1", content: "rockets need thrust and fuel" }]);
    await lessons.save("Give the thrust in kilonewtons", { taskDescription: "Describe the rocket engine" });
    expect(await lessons.search("rocket engine")).toHaveLength(1);
    const open = openConnectionCount();
    closeIdle();
    expect(openConnectionCount()).toBe(open - 4);

    // Statements prepared on the closed connection are gone; each store prepares them again.
    expect((await outputs.loadAll()).map((r) => r.taskId)).toEqual(["t"]);
    expect(await flows.loadState("flow-1")).toEqual({ n: 1 });
    expect((await search.search("thrust")).map((r) => r.id)).toEqual(["d1"]);
    await search.upsert([{ id: "d2", content: "thrust is measured in newtons" }]);
    expect(await search.count()).toBe(2);
    closeIdle();
    await lessons.save("Name the fuel", { taskDescription: "Describe the rocket fuel" });
    expect((await lessons.search("rocket")).map((item) => item.content).sort()).toEqual(["Give the thrust in kilonewtons", "Name the fuel"]);
  });

  it("lets every store and memory be used again after close(), and closes the files once all are closed", async () => {
    const before = openConnectionCount();
    const short = new ShortTermMemory();
    const entities = new EntityMemory();
    const lessons = new LongTermMemory();
    const knowledge = new Knowledge({ collectionName: "crew", sources: [new StringKnowledgeSource({ content: "Acme builds the Falcon engine in Toulouse." })] });
    const outputs = new SQLiteTaskOutputStore();
    const flows = new SQLiteFlowPersistence();
    const all = [short, entities, lessons, knowledge, outputs, flows];
    for (let round = 0; round < 2; round++) {
      await short.save(`The Falcon engine has 845 kN of thrust (round ${round})`);
      await entities.save({ name: "Acme", type: "organization", description: `Builds engines (round ${round})` });
      await lessons.save(`Give the thrust in kilonewtons (round ${round})`, { taskDescription: "Describe the Falcon engine" });
      await outputs.add({ taskId: "t", expectedOutput: "e", output: { raw: `round ${round}` }, taskIndex: 0 });
      await flows.saveState("flow-1", "step", { round });
      expect(await short.search("Falcon thrust")).toHaveLength(round + 1);
      expect((await entities.search("Acme"))[0]?.content).toContain(`round ${round}`);
      expect(await lessons.search("Falcon engine")).toHaveLength(round + 1);
      expect((await knowledge.query(["Falcon engine"]))[0]?.content).toContain("Toulouse");
      expect((await outputs.loadAll())[0]?.output).toEqual({ raw: `round ${round}` });
      expect(await flows.loadState("flow-1")).toEqual({ round });
      await Promise.all(all.map((store) => store.close()));
      closeIdle();
      expect(openConnectionCount()).toBe(before);
    }
  });

  it("runs the transactions of two stores on one file one at a time, and holds other statements until they end", async () => {
    const file = newFile();
    const a = track(new SQLiteDatabase(() => file, LOG_SETUP));
    const b = track(new SQLiteDatabase(() => file, LOG_SETUP));
    const steps: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));

    const failing = a.transaction(async (prepare) => {
      steps.push("a begins");
      prepare("INSERT INTO log VALUES ('a1')").run();
      await gate;
      steps.push("a fails");
      throw new Error("a gives up");
    });
    await vi.waitFor(() => expect(steps).toEqual(["a begins"]));
    const committed = b.transaction((prepare) => {
      steps.push("b runs");
      prepare("INSERT INTO log VALUES ('b1')").run();
    });
    const plain = b.use((prepare) => {
      steps.push("plain runs");
      prepare("INSERT INTO log VALUES ('plain')").run();
    });
    // Neither b's transaction nor its plain write may run inside a's open transaction.
    await new Promise((resolve) => setImmediate(resolve));
    expect(steps).toEqual(["a begins"]);
    release();
    await expect(failing).rejects.toThrow("a gives up");
    await Promise.all([committed, plain]);

    expect(steps.slice(0, 2)).toEqual(["a begins", "a fails"]);
    expect(steps.slice(2).sort()).toEqual(["b runs", "plain runs"]);
    // a's rollback took only a's row.
    expect((await log(a)).sort()).toEqual(["b1", "plain"]);
  });

  it("upserts from two search stores on one file at once without losing either", async () => {
    const file = newFile();
    const first = track(new SQLiteSearchStore({ path: file, collection: "entities" }));
    const second = track(new SQLiteSearchStore({ path: file, collection: "entities" }));
    await Promise.all([
      first.upsert([{ id: "acme", content: "Acme builds engines" }]),
      second.upsert([{ id: "acme", content: "Acme builds engines in Toulouse" }, { id: "falcon", content: "Falcon is an engine" }]),
      ...Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? first : second).upsert([{ id: `doc-${i}`, content: `document number ${i}` }])),
    ]);
    expect(await first.count()).toBe(12);
    expect((await second.get(["acme"]))[0]?.content).toBe("Acme builds engines in Toulouse");
  });

  it("gives a store that starts after its file was deleted the new file, not the deleted one", async () => {
    const file = newFile();
    const first = track(new SQLiteFlowPersistence(file));
    await first.saveState("flow-1", "step", { n: 1 });
    for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
    const second = track(new SQLiteFlowPersistence(file));
    expect(await second.loadState("flow-1")).toBeUndefined();
    await second.saveState("flow-1", "step", { n: 2 });
    expect(existsSync(file)).toBe(true);
    // The shared connection moved to the new file for both.
    expect(await first.loadState("flow-1")).toEqual({ n: 2 });
  });

  it("runs each setup once per open connection, different setups on one file each once", async () => {
    const file = newFile();
    const setup = (name: string) => [...LOG_SETUP, `INSERT INTO log VALUES ('setup ${name}')`];
    const a = track(new SQLiteDatabase(() => file, setup("A")));
    const a2 = track(new SQLiteDatabase(() => file, setup("A")));
    const b = track(new SQLiteDatabase(() => file, setup("B")));
    const select = (db: SQLiteDatabase) => db.use((prepare) => prepare("SELECT 1").get());
    await select(a);
    await select(a2);
    await select(b);
    await select(a);
    expect(await log(b)).toEqual(["setup A", "setup B"]);
    closeIdle();
    await select(a2);
    expect(await log(a)).toEqual(["setup A", "setup B", "setup A"]);
  });

  it("keeps a private in-memory database to its store, never closed for idleness", async () => {
    const before = openConnectionCount();
    const first = track(new SQLiteDatabase(() => ":memory:", LOG_SETUP));
    const second = track(new SQLiteDatabase(() => ":memory:", LOG_SETUP));
    await first.use((prepare) => prepare("INSERT INTO log VALUES ('mine')").run());
    closeIdle();
    expect(await log(first)).toEqual(["mine"]);
    expect(await log(second)).toEqual([]);
    expect(openConnectionCount()).toBe(before);
  });
});
