// Many runs in flight in one process: 10,000 kickoffs of a one-task crew started at once, each
// waiting 1 s on its model (FakeLLM latencyMs). Measured in fresh `node --expose-gc` processes
// (inFlightChild.ts): wall time against the ideal (one latency), event-loop delay while they run, and
// the heap each run in flight holds (heap used after a forced GC with every run waiting on its model).
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { BenchConfig } from "../lib/config.js";
import { markdownTable } from "../lib/markdown.js";
import type { ResultRow, ScenarioReport } from "../lib/report.js";
import { formatMs, quantile } from "../lib/stats.js";

const GROUP = "in-flight";
const RUNS = 10_000;
const LATENCY_MS = 1000;
// The heap is read once the last run is waiting on its model; on a loaded machine starting 10,000 runs can
// take longer than 1 s, and runs that finished meanwhile would have freed their part. So the heap child's
// model takes longer to answer (what a run holds while it waits does not depend on how long it waits).
const HEAP_LATENCY_MS = 10_000;
const GOALS = { wallRatio: 1.1, heapPerRunKB: 20, delayP99Ms: 50 };

interface TimeResult {
  outputs: number;
  calls: number;
  ms: number;
  /** CPU time of the process over the batch (user + system, garbage collection threads included). */
  cpuMs: number;
  delayP99Ms: number;
  delayMaxMs: number;
}
interface HeapResult {
  outputs: number;
  calls: number;
  gc: boolean;
  /** Every run was still waiting on its model when the heap was read (none had finished and freed its part). */
  allInFlight: boolean;
  before: number;
  peak: number;
  after: number;
}

function child<T>(config: BenchConfig, mode: "time" | "heap" | "model" | "hand" | "least"): T {
  const tsx = createRequire(import.meta.url).resolve("tsx");
  const script = join(config.root, "bench", "scenarios", "inFlightChild.ts");
  const latency = mode === "heap" ? HEAP_LATENCY_MS : LATENCY_MS;
  const out = spawnSync(process.execPath, ["--expose-gc", "--import", tsx, script, mode, String(RUNS), String(latency)], {
    cwd: config.root,
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: "" },
    maxBuffer: 16 * 2 ** 20,
  });
  if (out.status !== 0) throw new Error(`in-flight child (${mode}) exited ${out.status}: ${out.stderr.trim().split("\n").slice(-5).join(" ")}`);
  const result = JSON.parse(out.stdout.trim().split("\n").at(-1) ?? "{}") as T & { outputs: number; calls: number };
  if (result.outputs !== RUNS || result.calls !== RUNS) throw new Error(`in-flight child (${mode}): ${result.outputs} outputs and ${result.calls} LLM calls, expected ${RUNS} each`);
  return result;
}

/** Runs the in-flight scenario. */
export async function inFlightScenarios(config: BenchConfig): Promise<ScenarioReport> {
  const rounds = config.full ? 3 : 1;
  const times: TimeResult[] = [];
  const heaps: HeapResult[] = [];
  const floors: TimeResult[] = [];
  const hands: TimeResult[] = [];
  const leasts: TimeResult[] = [];
  for (let i = 0; i < rounds; i++) {
    floors.push(child<TimeResult>(config, "model"));
    hands.push(child<TimeResult>(config, "hand"));
    leasts.push(child<TimeResult>(config, "least"));
    times.push(child<TimeResult>(config, "time"));
    heaps.push(child<HeapResult>(config, "heap"));
  }
  const wall = quantile(times.map((t) => t.ms), 0.5);
  const floor = quantile(floors.map((t) => t.ms), 0.5);
  const hand = quantile(hands.map((t) => t.ms), 0.5);
  const least = quantile(leasts.map((t) => t.ms), 0.5);
  const delay = quantile(times.map((t) => t.delayP99Ms), 0.5);
  const perRunKB = quantile(heaps.map((h) => (h.peak - h.before) / RUNS / 1024), 0.5);
  const n = RUNS.toLocaleString("en-US");
  const scenario = `${n} kickoffs in flight at once (one-task crew, ${LATENCY_MS} ms LLM latency)`;
  const rows: ResultRow[] = [
    {
      group: GROUP,
      scenario: `${scenario}: wall time`,
      unit: "ms",
      crewts: formatMs(wall),
      against: "ideal",
      other: formatMs(LATENCY_MS),
      ratio: wall / LATENCY_MS,
      goal: "within 10% of ideal",
      met: wall / LATENCY_MS <= GOALS.wallRatio,
    },
    {
      group: GROUP,
      scenario: `${scenario}: wall time against the same calls made straight to the model`,
      unit: "ms",
      crewts: formatMs(wall),
      against: `${n} bare model calls`,
      other: formatMs(floor),
      ratio: wall / floor,
    },
    {
      group: GROUP,
      scenario: `${scenario}: wall time against the same kickoff written by hand`,
      unit: "ms",
      crewts: formatMs(wall),
      against: `${n} hand-written kickoffs`,
      other: formatMs(hand),
      ratio: wall / hand,
    },
    {
      group: GROUP,
      scenario: `${scenario}: the least correct kickoff, against ideal`,
      unit: "ms",
      crewts: formatMs(least),
      against: "ideal",
      other: formatMs(LATENCY_MS),
      ratio: least / LATENCY_MS,
    },
    {
      group: GROUP,
      scenario: `${scenario}: heap per run in flight`,
      unit: "KB",
      crewts: `${perRunKB.toFixed(1)} KB`,
      against: "limit",
      other: `${GOALS.heapPerRunKB} KB`,
      ratio: perRunKB / GOALS.heapPerRunKB,
      goal: `≤ ${GOALS.heapPerRunKB} KB`,
      met: heaps.every((h) => h.gc && h.allInFlight) && perRunKB <= GOALS.heapPerRunKB,
    },
    {
      group: GROUP,
      scenario: `${scenario}: event-loop delay p99`,
      unit: "ms",
      crewts: formatMs(delay),
      against: "limit",
      other: formatMs(GOALS.delayP99Ms),
      ratio: delay / GOALS.delayP99Ms,
      goal: `p99 < ${GOALS.delayP99Ms} ms`,
      met: delay < GOALS.delayP99Ms,
    },
  ];
  const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
  return {
    group: GROUP,
    rows,
    details: [
      `One crew (one agent, one task, InMemoryTaskOutputStore) gets ${n} \`kickoff()\` calls in one synchronous loop, after 200 warm-up kickoffs, ` +
        `in a fresh \`node --expose-gc\` process; the model answers after ${LATENCY_MS} ms. Each round runs two processes: one times the batch ` +
        "and records the event-loop delay (perf_hooks.monitorEventLoopDelay, 10 ms resolution); the other reads heap used after a forced GC " +
        `before the batch and again when the ${n}th model call has started (every run in flight: checked, less than one latency after the first call started; ` +
        `this process's model answers after ${HEAP_LATENCY_MS / 1000} s, so that a loaded machine still starts every run before the first finishes). ` +
        `${rounds} round(s); medians in the table above.`,
      `The floors: in a process set up the same way, ${n} calls made straight to the model (two short messages each, no crew) in one loop; ` +
        `and ${n} kickoffs written by hand for this one crew, with no framework: one id, the two messages the crew sends (split once where ` +
        "the topic stands), one model call with the crew's stop word, the final answer cut out of the reply. The second is what any " +
        "framework's run of this crew costs at the least; the crew's own work is the difference. " +
        `And ${n} of the least a correct kickoff of this crew does, with crewts's own output types and nothing around them: the hand-written ` +
        "kickoff plus the replay log reset before the call and written by the latest kickoff, a reply without a final answer refused, a TaskOutput " +
        "with the conversation, the usage added up and a CrewOutput (no run copies, events, hooks or pacing). Its ratio to the ideal is where the " +
        "wall-time goal stands against what a correct run must do on this machine.",
      markdownTable(
        ["round", "bare model calls", "hand-written kickoffs", "least correct kickoffs", "wall time", "CPU per kickoff", "event-loop delay p99 / max", "heap before", "heap with all in flight", "per run", "heap after"],
        times.map((t, i) => {
          const h = heaps[i] as HeapResult;
          const peak = `${mb(h.peak)}${h.allInFlight ? "" : " (some runs had finished)"}`;
          return [String(i + 1), formatMs((floors[i] as TimeResult).ms), formatMs((hands[i] as TimeResult).ms), formatMs((leasts[i] as TimeResult).ms), formatMs(t.ms), `${((t.cpuMs * 1000) / RUNS).toFixed(0)} µs`, `${formatMs(t.delayP99Ms)} / ${formatMs(t.delayMaxMs)}`, mb(h.before), peak, `${((h.peak - h.before) / RUNS / 1024).toFixed(1)} KB`, mb(h.after)];
        }),
      ),
    ],
  };
}
