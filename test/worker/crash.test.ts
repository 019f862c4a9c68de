import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QueueRuns } from "../../src/worker/QueueRuns.js";
import { redisOptions } from "../../src/worker/redisQueue.js";
import { startLocalServices, type LocalServices } from "../services/localServices.js";
import { spawnWorker, stopWorker, type WorkerProcess } from "./workerProcesses.js";

// Real Redis, three real worker processes; one is killed with SIGKILL while it runs kickoffs.
let services: LocalServices;
const workers: WorkerProcess[] = [];
beforeAll(async () => {
  services = await startLocalServices("redis");
}, 60_000);
afterAll(async () => {
  for (const worker of workers) await stopWorker(worker);
  await services?.stop();
}, 30_000);

describe("workers on BullMQ", () => {
  it("finishes 200 of 200 kickoffs of a 3-task crew (50 ms LLM latency) when one of 3 workers is SIGKILLed mid-run", async () => {
    const queue = "crash";
    // A 2 s lock: the killed worker's jobs are found stalled and taken over about 2 s after the kill.
    const env = { CREWTS_REDIS_URL: services.redisUrl!, QUEUE: queue, LLM_LATENCY_MS: "50", LOCK_MS: "2000", CONCURRENCY: "10" };
    for (let i = 0; i < 3; i++) workers.push(spawnWorker(env));
    await Promise.all(workers.map((w) => w.ready));

    const runs = await QueueRuns.connect(services.redisUrl!, { queue, backoffMs: 50 });
    const ids = Array.from({ length: 200 }, (_, i) => `kickoff-${i}`);
    // Subscribing needs the job to exist: submit first, then subscribe (an end already past is still seen, see QueueRuns.subscribe).
    await Promise.all(ids.map((id, i) => runs.submit(id, { inputs: { topic: `t${i}` } })));
    const ended = ids.map(
      (id) =>
        new Promise<{ id: string; state: string; raw?: string }>((resolve) => {
          void runs.subscribe(id, () => {}, (status) => resolve({ id, state: status.state, raw: (status.result as { raw?: string } | undefined)?.raw }));
        }),
    );
    const results = Promise.all(ended);

    // The victim is whichever worker first has taken 15 kickoffs (with 10 at a time, it is running some).
    const victim = workers[await Promise.race(workers.map((w, i) => w.startedAtLeast(15).then(() => i)))]!;
    const inFlight = await activeJobsOf(victim, services.redisUrl!, queue);
    victim.child.kill("SIGKILL");
    await victim.exited;
    expect(inFlight.length, "the killed worker had kickoffs running").toBeGreaterThan(0);

    const all = await results;
    expect(all.filter((r) => r.state === "SUCCESS")).toHaveLength(200);
    for (const [i, r] of all.entries()) expect(r.raw).toBe(`Polish of t${i} done`);

    // The kickoffs the killed worker held were run again by the others (from the start: see the report).
    const q = new Queue(queue, { connection: redisOptions(services.redisUrl!) });
    const stalled = await Promise.all(inFlight.map((id) => q.getJob(id)));
    expect(stalled.every((job) => job && job.stalledCounter >= 1)).toBe(true);
    await q.close();
    await runs.close();
  }, 120_000);
});

/** The ids of the jobs `worker` holds right now: taken by it (its stdout) and still active in Redis. */
async function activeJobsOf(worker: WorkerProcess, redisUrl: string, queue: string): Promise<string[]> {
  const q = new Queue(queue, { connection: redisOptions(redisUrl) });
  const active = new Set((await q.getActive()).map((job) => String((job.data as { inputs: { topic: string } }).inputs.topic)));
  await q.close();
  const topics = worker.started.filter((topic) => active.has(topic));
  return topics.map((topic) => `kickoff-${topic.slice(1)}`);
}
