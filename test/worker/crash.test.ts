import { Queue } from "bullmq";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QueueRuns } from "../../src/worker/QueueRuns.js";
import { redisOptions } from "../../src/worker/redisQueue.js";
import { startLocalServices, type LocalServices } from "../services/localServices.js";
import { spawnWorker, stopWorker, type WorkerProcess } from "./workerProcesses.js";

// Real Redis and Postgres (the checkpoints), three real worker processes; one is killed with SIGKILL while it runs kickoffs.
let services: LocalServices;
let dir = "";
const workers: WorkerProcess[] = [];
beforeAll(async () => {
  services = await startLocalServices("all");
  dir = await mkdtemp(join(tmpdir(), "crewts-crash-"));
}, 90_000);
afterAll(async () => {
  for (const worker of workers) await stopWorker(worker);
  await services?.stop();
  await rm(dir, { recursive: true, force: true });
}, 30_000);

describe("workers on BullMQ", () => {
  it("finishes 200 of 200 kickoffs of a 3-task crew (50 ms LLM latency) when one of 3 workers is SIGKILLed mid-run", async () => {
    const queue = "crash";
    // A 2 s lock: the killed worker's jobs are found stalled and taken over about 2 s after the kill.
    const calls = join(dir, "calls.log");
    const env = { CREWTS_REDIS_URL: services.redisUrl!, CREWTS_DATABASE_URL: services.databaseUrl!, CALLS_FILE: calls, QUEUE: queue, LLM_LATENCY_MS: "50", LOCK_MS: "2000", CONCURRENCY: "10" };
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

    // The kickoffs the killed worker held were taken over by the others. One listed as running may
    // have finished in the moment between the listing and the kill, so not every one need be stalled.
    const q = new Queue(queue, { connection: redisOptions(services.redisUrl!) });
    const stalled = await Promise.all(inFlight.map((id) => q.getJob(id)));
    expect(stalled.filter((job) => job && job.stalledCounter >= 1).length, "kickoffs found stalled and taken over").toBeGreaterThan(0);

    // ...resumed from their newest checkpoint: across all processes, every task's LLM call was made,
    // and a kickoff made at most one call twice (the step in flight when its worker died).
    const takenOver = new Set((await Promise.all(ids.map((id) => q.getJob(id)))).filter((job) => job && (job.stalledCounter > 0 || job.attemptsMade > 0)).map((job) => job!.id));
    const counts = new Map<string, number>();
    for (const line of (await readFile(calls, "utf8")).split("\n").filter(Boolean)) counts.set(line, (counts.get(line) ?? 0) + 1);
    let repeated = 0;
    for (let i = 0; i < 200; i++) {
      const steps = ["Outline", "Draft", "Polish"].map((step) => counts.get(`${step} of t${i} done`) ?? 0);
      expect(Math.min(...steps), `every task of t${i} called its LLM`).toBeGreaterThanOrEqual(1);
      const extra = steps.reduce((sum, n) => sum + n - 1, 0);
      expect(extra, `calls of t${i} beyond one per task: ${steps.join(", ")}`).toBeLessThanOrEqual(takenOver.has(`kickoff-${i}`) ? 1 : 0);
      repeated += extra;
    }
    expect(counts.size, "no call answered anything else").toBe(600);
    // Without checkpoints each taken-over kickoff would run from its first task again.
    expect(repeated).toBeLessThanOrEqual(takenOver.size);
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
