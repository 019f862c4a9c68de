// Run by tracing.ts in its own process (node --import tsx, no --expose-gc): the crew scenario's 20
// sequential tasks with tracing off and on, side by side, printed as one JSON line of measured samples.
// A fresh process, because the heap earlier groups of a full run leave behind moved the traced
// contender's median by half (it makes more short-lived objects than the untraced one).
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { enableTracing } from "../../src/index.js";
import { compare, type Contender } from "../lib/runner.js";
import { crewtsCrew, finalAnswerLLM } from "./crew.js";

const [tasksArg = "20"] = process.argv.slice(2);
const TASKS = Number(tasksArg);
/** Spans of one run: the crew, and per task a task, an agent and an llm.call span. */
const SPANS_PER_RUN = 1 + 3 * TASKS;

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
console.log(JSON.stringify({ measured, spansPerRun: SPANS_PER_RUN }));
