// Tracing scenario: the crew scenario's 20 sequential tasks with tracing off and on (OpenTelemetry
// spans into memory), side by side in one fresh process (tracingChild.ts). The difference per task is
// what tracing costs.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { BenchConfig } from "../lib/config.js";
import { samplesTable, cell, type ResultRow, type ScenarioReport } from "../lib/report.js";
import type { Measured } from "../lib/runner.js";
import { formatMs, formatRatio } from "../lib/stats.js";

const TASKS = 20;
const GOAL_US = 50;

/** Runs the tracing scenario. */
export async function tracingScenarios(config: BenchConfig): Promise<ScenarioReport> {
  const tsx = createRequire(import.meta.url).resolve("tsx");
  const script = join(config.root, "bench", "scenarios", "tracingChild.ts");
  const out = spawnSync(process.execPath, ["--import", tsx, script, String(TASKS)], {
    cwd: config.root,
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: "" },
    maxBuffer: 16 * 2 ** 20,
  });
  if (out.status !== 0) throw new Error(`tracing child exited ${out.status}: ${out.stderr.trim().split("\n").slice(-5).join(" ")}`);
  const { measured, spansPerRun } = JSON.parse(out.stdout.trim().split("\n").at(-1) ?? "{}") as { measured: Measured[]; spansPerRun: number };
  const [offM, onM] = measured as [(typeof measured)[0], (typeof measured)[0]];
  const scenario = `${TASKS} sequential tasks, zero-latency LLM, spans to an in-memory exporter`;
  const rows: ResultRow[] = [];
  if (offM.summary && onM.summary) {
    const addedMs = onM.summary.median - offM.summary.median;
    rows.push({ group: "tracing", scenario, unit: "per task", crewts: cell(onM), against: "tracing off", other: cell(offM), ratio: onM.summary.median / offM.summary.median });
    rows.push({
      group: "tracing",
      scenario: `${scenario}: added by tracing`,
      unit: "per task",
      crewts: formatMs(addedMs),
      against: "limit",
      other: `${GOAL_US} µs`,
      goal: `< ${GOAL_US} µs`,
      met: addedMs * 1000 < GOAL_US && !onM.mismatch,
    });
  }
  return {
    group: "tracing",
    rows,
    details: [
      `Each run builds a one-agent crew of ${TASKS} tasks (in-memory task output store) and kicks it off. "tracing on" calls ` +
        "enableTracing() with a BasicTracerProvider and a SimpleSpanProcessor into an InMemorySpanExporter before the run and " +
        `switches it off after (counted too), so ${spansPerRun} spans are made per run. The processor exports each span as it ends ` +
        "(the in-memory exporter arms one timer per export), which a BatchSpanProcessor would group. Tracing off is the default: emitters skip the events nobody listens to. " +
        "Both run in a fresh process: after the groups before it in a full run, the traced contender's median moved by half. " +
        (offM.summary && onM.summary ? `On/off: ${formatRatio(onM.summary.median / offM.summary.median)}.` : ""),
      samplesTable(scenario, measured, "per task"),
    ],
  };
}
