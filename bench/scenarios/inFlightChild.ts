// Run by inFlight.ts in its own process (node --expose-gc --import tsx): starts RUNS kickoffs of a
// one-task crew at once, each waiting LATENCY ms on its model, and prints one JSON line:
//   mode "time": wall time of the whole batch and the event-loop delay while it runs;
//   mode "model": the same for RUNS calls straight to the model (the floor the crew's runs are measured against);
//   mode "heap": heap used after a forced GC before the batch, and again once every run is waiting
//   on its model (all RUNS in flight), so (peak - before) / RUNS is what one run in flight holds.
import { monitorEventLoopDelay } from "node:perf_hooks";
import v8 from "node:v8";
import { Agent, Crew, InMemoryTaskOutputStore, Task } from "../../src/index.js";
import { FakeLLM } from "../../src/testing/index.js";

const [mode = "time", runsArg = "10000", latencyArg = "1000"] = process.argv.slice(2);
const RUNS = Number(runsArg);
const LATENCY = Number(latencyArg);
const gc = (globalThis as { gc?: () => void }).gc;

let onAllInFlight: (() => void) | undefined;
let calls = 0;
// When the first model call of the batch started: no run has finished while less than LATENCY has passed since.
let firstCallAt = 0;
const llm = new FakeLLM(
  () => {
    if (++calls === 1) firstCallAt = performance.now();
    if (calls === RUNS) setImmediate(() => onAllInFlight?.());
    return "Thought: I have it\nFinal Answer: done";
  },
  { latencyMs: LATENCY, usage: { promptTokens: 10, completionTokens: 5 }, record: false },
);
const agent = new Agent({ role: "Writer", goal: "Write about {topic}", backstory: "Quick", llm });
const task = new Task({ description: "Write about {topic}", expectedOutput: "a line", agent });
const crew = new Crew({ agents: [agent], tasks: [task], taskOutputStore: new InMemoryTaskOutputStore() });

// Warm-up: the code paths compiled and the crew's lazy parts loaded before anything is measured.
await Promise.all(Array.from({ length: 200 }, (_, i) => crew.kickoff({ topic: `warm-up ${i}` })));
calls = 0;

const inputs = Array.from({ length: RUNS }, (_, i) => ({ topic: `topic ${i}` }));
// "model": the floor, measured the same way: the same number of calls straight to the model, no crew.
const start: (input: { topic: string }) => Promise<unknown> =
  mode === "model" ? (input: { topic: string }) => llm.call([{ role: "system", content: "You are Writer." }, { role: "user", content: `Write about ${input.topic}` }]) : (input: { topic: string }) => crew.kickoff(input);
if (mode === "heap") {
  gc?.();
  gc?.();
  const before = process.memoryUsage().heapUsed;
  let peak = 0;
  let allInFlight = false;
  onAllInFlight = () => {
    allInFlight = performance.now() - firstCallAt < LATENCY;
    gc?.();
    gc?.();
    peak = process.memoryUsage().heapUsed;
    if (process.env.IN_FLIGHT_SNAPSHOT) v8.writeHeapSnapshot(process.env.IN_FLIGHT_SNAPSHOT);
  };
  const outputs = await Promise.all(inputs.map((input) => crew.kickoff(input)));
  gc?.();
  const after = process.memoryUsage().heapUsed;
  console.log(JSON.stringify({ mode, runs: RUNS, outputs: outputs.length, calls, gc: gc !== undefined, allInFlight, before, peak, after }));
} else {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  // The monitor records a delay from its second tick on: let it tick before the batch, so a batch that
  // holds the loop from its very start is measured too.
  await new Promise((resolve) => setTimeout(resolve, 3 * 10));
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const outputs = await Promise.all(inputs.map(start));
  const ms = performance.now() - t0;
  // CPU of the whole process (garbage collection threads included) over the batch.
  const cpu = process.cpuUsage(cpu0);
  delay.disable();
  const cpuMs = (cpu.user + cpu.system) / 1000;
  console.log(JSON.stringify({ mode, runs: RUNS, outputs: outputs.length, calls, ms, cpuMs, delayP99Ms: delay.percentile(99) / 1e6, delayMaxMs: delay.max / 1e6 }));
}
