// Serve and scale out: what the BullMQ queue costs per kickoff over running it in-process, and
// kickoffs per second with one and two worker processes. Needs redis-server (Debian's package):
// scripts/services.sh starts a private one in the bench's scratch folder and stops it after.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Agent, Crew, crewController, eventBus, InMemoryTaskOutputStore, QueueRuns, startWorker, Task } from "../../src/index.js";
import type { RunController } from "../../src/index.js";
import { FakeLLM } from "../../src/testing/index.js";
import type { BenchConfig } from "../lib/config.js";
import { cell, samplesTable, type ResultRow, type ScenarioReport } from "../lib/report.js";
import { compare, type Contender } from "../lib/runner.js";
import { formatMs } from "../lib/stats.js";

const OVERHEAD_GOAL_MS = 5;

function oneTaskController(): RunController {
  const llm = new FakeLLM(() => "done", { record: false });
  return crewController(() => {
    const agent = new Agent({ role: "Writer", goal: "Write about {topic}", backstory: "Brief.", llm });
    const task = new Task({ description: "Write about {topic}", expectedOutput: "Text", agent });
    return new Crew({ agents: [agent], tasks: [task], taskOutputStore: new InMemoryTaskOutputStore() });
  }, eventBus);
}

/** Submits a kickoff and resolves with its final state. */
async function runThroughQueue(runs: QueueRuns, id: string, inputs: Record<string, unknown>): Promise<string> {
  await runs.submit(id, { inputs });
  return new Promise<string>((resolve) => void runs.subscribe(id, () => {}, (status) => resolve(status.state)));
}

function spawnWorker(config: BenchConfig, env: Record<string, string>): { child: ChildProcess; ready: Promise<void> } {
  const tsx = createRequire(import.meta.url).resolve("tsx");
  const child = spawn(process.execPath, ["--import", tsx, join(config.root, "bench", "scenarios", "queueWorker.ts")], {
    cwd: config.root,
    env: { ...process.env, NODE_OPTIONS: "", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const ready = new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (line) => line === "ready" && resolve());
    child.once("exit", (code) => reject(new Error(`bench worker exited ${code}`)));
  });
  return { child, ready };
}

/** Runs the queue scenarios. */
export async function queueScenarios(config: BenchConfig): Promise<ScenarioReport> {
  const group = "queue";
  const services = join(config.tmpDir, "services");
  const env = { ...process.env, CREWTS_SERVICES_DIR: services };
  let redisUrl: string;
  try {
    const out = execFileSync(join(config.root, "scripts", "services.sh"), ["start", "redis"], { env, encoding: "utf8" });
    redisUrl = /CREWTS_REDIS_URL=(\S+)/.exec(out)![1]!;
  } catch (error) {
    const why = `Redis could not be started (${(error as Error).message.split("\n")[0]}); install redis-server`;
    return { group, rows: [{ group, scenario: "queue overhead per kickoff", unit: "per kickoff", crewts: `unavailable (${why})`, against: "in-process", other: "n/a" }], details: [] };
  }
  try {
    // 1. Overhead: one kickoff at a time of a 1-task crew on a zero-latency model, in-process against
    // through the queue (submit, a worker in this process takes it, the end arrives over pub/sub).
    const controller = oneTaskController();
    const runs = await QueueRuns.connect(redisUrl, { queue: "overhead" });
    // The queue alone (checkpoints off), and the queue as served kickoffs run by default: a checkpoint after each task.
    const worker = await startWorker({ controller, redisUrl, queue: "overhead", concurrency: 1, checkpoint: false });
    const cpRuns = await QueueRuns.connect(redisUrl, { queue: "overhead-cp" });
    const cpWorker = await startWorker({ controller, redisUrl, queue: "overhead-cp", concurrency: 1, checkpoint: { location: join(config.tmpDir, "checkpoints") } });
    let n = 0;
    let failed = 0;
    const inProcess: Contender = {
      name: "in-process",
      run: async () => void (await controller.start({ topic: "x" }, { signal: new AbortController().signal, onEvent: () => {} })),
    };
    const queued: Contender = {
      name: "queue",
      run: async () => {
        if ((await runThroughQueue(runs, `o${++n}`, { topic: "x" })) !== "SUCCESS") failed++;
      },
      verify: () => (failed ? `${failed} kickoffs did not succeed` : undefined),
    };
    const checkpointed: Contender = {
      name: "queue + checkpoints",
      run: async () => {
        if ((await runThroughQueue(cpRuns, `c${++n}`, { topic: "x" })) !== "SUCCESS") failed++;
      },
      verify: () => (failed ? `${failed} kickoffs did not succeed` : undefined),
    };
    const measured = await compare([inProcess, queued, checkpointed], { warmup: 3, samples: config.full ? 8 : 4, minSampleMs: config.full ? 300 : 100 });
    await worker.close(2_000);
    await cpWorker.close(2_000);
    await cpRuns.close();
    const [local, queue, withCheckpoints] = measured;
    const overhead = queue?.summary && local?.summary ? queue.summary.median - local.summary.median : undefined;
    const rows: ResultRow[] = [
      {
        group,
        scenario: "queue overhead per kickoff (1-task crew, zero-latency model, one at a time)",
        unit: "per kickoff",
        crewts: cell(queue),
        against: "in-process",
        other: cell(local),
        ...(queue?.summary && local?.summary ? { ratio: queue.summary.median / local.summary.median } : {}),
        goal: `overhead < ${OVERHEAD_GOAL_MS} ms`,
        ...(overhead !== undefined ? { met: overhead < OVERHEAD_GOAL_MS && !queue?.mismatch } : {}),
      },
    ];
    if (withCheckpoints?.summary && queue?.summary) {
      rows.push({
        group,
        scenario: "checkpoints of a queued kickoff (1-task crew, SQLite, written after the task)",
        unit: "per kickoff",
        crewts: cell(withCheckpoints),
        against: "queue without checkpoints",
        other: cell(queue),
        ratio: withCheckpoints.summary.median / queue.summary.median,
      });
    }
    const details = [samplesTable("Queue overhead", measured, "ms per kickoff"), `Overhead (queue − in-process, medians): ${overhead === undefined ? "n/a" : formatMs(overhead)}.`];

    // 2. Throughput: 200 kickoffs of a 3-task crew (20 ms model latency) with 1 and 2 worker processes of concurrency 10.
    const kickoffs = config.full ? 400 : 200;
    const perSecond: Record<number, number> = {};
    for (const workers of [1, 2]) {
      const queueName = `throughput${workers}`;
      const children = Array.from({ length: workers }, () => spawnWorker(config, { CREWTS_REDIS_URL: redisUrl, QUEUE: queueName, LLM_LATENCY_MS: "20", CONCURRENCY: "10", CHECKPOINT_DIR: join(config.tmpDir, "checkpoints") }));
      await Promise.all(children.map((c) => c.ready));
      const target = await QueueRuns.connect(redisUrl, { queue: queueName });
      const t0 = performance.now();
      const states = await Promise.all(Array.from({ length: kickoffs }, (_, i) => runThroughQueue(target, `k${i}`, { topic: `t${i}` })));
      const seconds = (performance.now() - t0) / 1000;
      perSecond[workers] = kickoffs / seconds;
      for (const c of children) c.child.kill("SIGTERM");
      await Promise.all(children.map((c) => new Promise<void>((resolve) => (c.child.exitCode !== null ? resolve() : c.child.once("exit", () => resolve())))));
      await target.close();
      const bad = states.filter((s) => s !== "SUCCESS").length;
      if (bad) details.push(`${bad} of ${kickoffs} kickoffs did not succeed with ${workers} worker(s).`);
    }
    rows.push({
      group,
      scenario: `throughput, ${kickoffs} kickoffs of a 3-task crew (20 ms model), workers of concurrency 10`,
      unit: "kickoffs/s",
      crewts: `2 workers: ${perSecond[2]!.toFixed(1)}/s`,
      against: "1 worker",
      other: `${perSecond[1]!.toFixed(1)}/s`,
      ratio: perSecond[2]! / perSecond[1]!,
    });
    details.push(
      `Throughput: ${perSecond[1]!.toFixed(1)} kickoffs/s with 1 worker process, ${perSecond[2]!.toFixed(1)} with 2 (ideal for 10 concurrent 3 × 20 ms kickoffs per worker: ${((10 * 1000) / 60).toFixed(0)}/s per worker; the machine's cores are shared with the bench process and Redis).`,
    );
    await runs.close();
    return { group, rows, details };
  } finally {
    execFileSync(join(config.root, "scripts", "services.sh"), ["stop"], { env });
  }
}
