import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import { eventBus } from "../../src/events/index.js";
import { createServer, type CrewtsServer } from "../../src/serve/createServer.js";
import type { RunController } from "../../src/serve/types.js";
import { startWorker, type KickoffWorker, type KickoffWorkerOptions } from "../../src/worker/KickoffWorker.js";
import { QueueRuns, type QueueRunsOptions } from "../../src/worker/QueueRuns.js";
import { startLocalServices, type LocalServices } from "../services/localServices.js";

/** What one queued set-up gives a test: the server's URL, calls with the token, and more workers on its queue. */
export interface QueuedServer {
  url: string;
  queue: string;
  backend: QueueRuns;
  server: CrewtsServer;
  /** The worker started with it (none with `workers: 0`). */
  worker: KickoffWorker | undefined;
  call: (path: string, init?: RequestInit) => Promise<Response>;
  kickoff: (inputs: Record<string, unknown>, webhooks?: Record<string, string>) => Promise<string>;
  /** Another worker on the same queue (closed after the test). */
  addWorker: (options?: Partial<KickoffWorkerOptions>) => Promise<KickoffWorker>;
}

/**
 * The set-up of a test file that runs kickoffs through a real Redis queue: a private Redis (and
 * Postgres with `services: "all"`) for the file, a checkpoint folder, and per test a server on a
 * fresh queue with a worker in this process; everything started is stopped after each test.
 */
export function queueHarness(options: { token: string; services?: "redis" | "all" }) {
  let services: LocalServices | undefined;
  const checkpoints = mkdtempSync(join(tmpdir(), "crewts-queue-checkpoints-"));
  let cleanup: (() => Promise<void>)[] = [];
  let count = 0;
  beforeAll(async () => {
    services = await startLocalServices(options.services ?? "redis");
  }, 60_000);
  afterAll(async () => {
    await services?.stop();
    rmSync(checkpoints, { recursive: true, force: true });
  }, 30_000);
  afterEach(async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup = [];
    eventBus.clear();
  });

  const headers = { authorization: `Bearer ${options.token}`, "content-type": "application/json" };
  return {
    /** The services of this file (after beforeAll). */
    services: (): LocalServices => services!,
    /** Where workers write checkpoints (a lineage per kickoff id). */
    checkpoints,
    /** Runs `step` after the test (in reverse order of registration). */
    defer: (step: () => Promise<void>): void => void cleanup.push(step),
    /** A server enqueueing to a fresh queue, and (unless `workers: 0`) a worker taking from it. */
    async serve(controller: RunController, setup: QueueRunsOptions & { workers?: 0 | 1; worker?: Partial<KickoffWorkerOptions> } = {}): Promise<QueuedServer> {
      const { workers = 1, worker: workerOptions = {}, ...queueOptions } = setup;
      const queue = `q${++count}-${process.pid}`;
      const redisUrl = services!.redisUrl!;
      const backend = await QueueRuns.connect(redisUrl, { queue, backoffMs: 20, ...queueOptions });
      const server = await createServer({ controller, backend, token: options.token });
      const url = await server.listen({ port: 0 });
      cleanup.push(async () => {
        await server.close();
        await backend.close();
      });
      const addWorker = async (more: Partial<KickoffWorkerOptions> = {}): Promise<KickoffWorker> => {
        const started = await startWorker({ controller, redisUrl, queue, concurrency: 4, checkpoint: { location: checkpoints }, ...workerOptions, ...more });
        cleanup.push(() => started.close(2_000));
        return started;
      };
      const worker = workers ? await addWorker() : undefined;
      const call = (path: string, init: RequestInit = {}) => fetch(url + path, { ...init, headers: { ...headers, ...(init.headers as Record<string, string> | undefined) } });
      const kickoff = async (inputs: Record<string, unknown>, webhooks?: Record<string, string>) =>
        ((await (await call("/kickoff", { method: "POST", body: JSON.stringify({ inputs, ...(webhooks ? { webhooks } : {}) }) })).json()) as { kickoff_id: string }).kickoff_id;
      return { url, queue, backend, server, worker, call, kickoff, addWorker };
    },
  };
}
