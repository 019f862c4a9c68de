import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { resolve } from "node:path";
import { createRequire } from "node:module";

const script = resolve(import.meta.dirname, "fixtures/workerProcess.ts");
const tsx = createRequire(import.meta.url).resolve("tsx");

/** A worker child process and what it said on stdout. */
export interface WorkerProcess {
  child: ChildProcess;
  started: string[];
  calls: number[];
  /** Resolves once the worker listens to the queue. */
  ready: Promise<void>;
  /** Resolves once `n` kickoffs were taken by this worker. */
  startedAtLeast(n: number): Promise<void>;
  exited: Promise<void>;
}

/** Starts test/worker/fixtures/workerProcess.ts as a real process with `env`. */
export function spawnWorker(env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, ["--import", tsx, script], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  const started: string[] = [];
  const calls: number[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  let readyResolve!: () => void;
  const ready = new Promise<void>((r) => (readyResolve = r));
  createInterface({ input: child.stdout }).on("line", (line) => {
    if (line === "ready") readyResolve();
    else if (line.startsWith("start ")) {
      started.push(line.slice(6));
      for (const w of waiters.filter((w) => started.length >= w.n)) w.resolve();
    } else if (line.startsWith("call ")) calls.push(Number(line.slice(5)));
  });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  return {
    child,
    started,
    calls,
    ready: Promise.race([ready, exited.then(() => Promise.reject(new Error("The worker process exited before it was ready.")))]),
    startedAtLeast: (n) => (started.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))),
    exited,
  };
}

/** Stops a worker started by spawnWorker (SIGTERM, or nothing if it is gone already). */
export async function stopWorker(worker: WorkerProcess): Promise<void> {
  if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill("SIGTERM");
  await worker.exited;
}
