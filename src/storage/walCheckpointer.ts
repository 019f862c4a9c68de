import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

// SQLite in WAL mode with synchronous=NORMAL never syncs on commit; it syncs when a checkpoint copies the
// log into the database, which by default the committing connection does every 1,000 pages, blocking
// the write that crossed the mark on two fsyncs. For files written at every step of a run (checkpoints),
// that connection turns automatic checkpoints off and this worker thread runs them instead, on its own
// connection, in PASSIVE mode (it never blocks a writer and never waits for one). Durability is
// unchanged: a commit is in the log, safe when the process is killed, before the write resolves.
const SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.libsql);
const open = new Map();
parentPort.on("message", ({ op, path }) => {
  if (op === "ping") return parentPort.postMessage({ op: "pong" });
  try {
    if (op === "close") {
      open.get(path)?.close();
      open.delete(path);
      return;
    }
    let db = open.get(path);
    if (!db) open.set(path, (db = new Database(path, { timeout: 0 })));
    db.exec("PRAGMA wal_checkpoint(PASSIVE)");
  } catch (error) {
    try { open.get(path)?.close(); } catch {}
    open.delete(path);
    parentPort.postMessage({ op: "failed", path, message: String((error && error.message) || error) });
  }
});
`;

let worker: Worker | undefined;
let failed = false;
let pongs: (() => void)[] = [];

/** Whether checkpoints can run on the worker (false once it failed: connections then checkpoint themselves). */
export function backgroundCheckpointsWork(): boolean {
  return !failed;
}

/** Asks the worker to fold the write-ahead log of the file at `path` into the database. */
export function requestCheckpoint(path: string): void {
  if (failed) return;
  try {
    worker ??= startWorker();
    worker.postMessage({ op: "checkpoint", path });
  } catch {
    stop();
  }
}

/** Lets the worker close its connection to `path` (the process's own connection closed). */
export function releaseCheckpointer(path: string): void {
  worker?.postMessage({ op: "close", path });
}

/** Resolves once the worker has run every checkpoint asked for so far (at once when none was). */
export function checkpointsSettled(): Promise<void> {
  if (!worker) return Promise.resolve();
  const running = worker;
  return new Promise((resolve) => {
    pongs.push(resolve);
    running.postMessage({ op: "ping" });
  });
}

function startWorker(): Worker {
  const libsql = createRequire(import.meta.url).resolve("libsql");
  const started = new Worker(SOURCE, { eval: true, workerData: { libsql } });
  started.on("error", stop);
  started.on("message", (message: { op?: string }) => {
    if (message.op === "failed") stop();
    else if (message.op === "pong") pongs.shift()?.();
  });
  // Never keeps a finished program alive; a checkpoint cut short by exit is safe (SQLite redoes it).
  // After the listeners: adding a message listener refs the worker again.
  started.unref();
  return started;
}

function stop(): void {
  failed = true;
  const running = worker;
  worker = undefined;
  for (const resolve of pongs) resolve();
  pongs = [];
  void running?.terminate();
}
