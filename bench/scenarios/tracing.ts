// Tracing scenario: the crew scenario's 20 sequential tasks with tracing off and on (OpenTelemetry
// spans into memory), side by side in one process. The difference per task is what tracing costs.
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { enableTracing } from "../../src/index.js";
import type { BenchConfig } from "../lib/config.js";
import { samplesTable, cell, type ResultRow, type ScenarioReport } from "../lib/report.js";
import { compare, type Contender } from "../lib/runner.js";
import { formatMs, formatRatio } from "../lib/stats.js";
import { crewtsCrew, finalAnswerLLM } from "./crew.js";

const TASKS = 20;
/** Spans of one run: the crew, and per task a task, an agent and an llm.call span. */
const SPANS_PER_RUN = 1 + 3 * TASKS;
const GOAL_US = 50;

/** Runs the tracing scenario. */
export async function tracingScenarios(_config: BenchConfig): Promise<ScenarioReport> {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let spans = -1;
  const runCrew = async () => {
    const out = await crewtsCrew(finalAnswerLLM(), TASKS, true).kickoff();
    if (out.tasksOutput.length !== TASKS) throw new Error(`crewts ran ${out.tasksOutput.length} tasks`);
  };
  const off: Contender = { name: "tracing off", run: runCrew };
  const on: Contender = {
    name: "tracing on",
    // Switched on and off around each run so the other contender runs untraced; that switch is counted too.
    run: async () => {
      exporter.reset();
      const disable = await enableTracing({ tracerProvider: provider });
      try {
        await runCrew();
      } finally {
        await disable();
      }
      spans = exporter.getFinishedSpans().length;
    },
    verify: () => (spans === SPANS_PER_RUN ? undefined : `${spans} spans per run, expected ${SPANS_PER_RUN}`),
  };
  // Twelve samples of 100 ms each in both runs (about 3 s in all): the difference of two medians is
  // small next to either, and the short run's three 30 ms samples gave 3-7x the full run's figure for
  // the same code (a collection or the JIT landing in one sample moves the median). Twenty untimed runs
  // each first, so the JIT has compiled the OpenTelemetry SDK's paths.
  const measured = await compare([off, on], { warmup: 20, samples: 12, minSampleMs: 100, divisor: TASKS });
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
        `switches it off after (counted too), so ${SPANS_PER_RUN} spans are made per run. The processor exports each span as it ends ` +
        "(the in-memory exporter arms one timer per export), which a BatchSpanProcessor would group. Tracing off is the default: emitters skip the events nobody listens to. " +
        (offM.summary && onM.summary ? `On/off: ${formatRatio(onM.summary.median / offM.summary.median)}.` : ""),
      samplesTable(scenario, measured, "per task"),
    ],
  };
}
