// Run by inFlight.ts in its own process (node --expose-gc --import tsx): starts RUNS kickoffs of a
// one-task crew at once, each waiting LATENCY ms on its model, and prints one JSON line:
//   mode "time": wall time of the whole batch and the event-loop delay while it runs;
//   mode "model": the same for RUNS calls straight to the model (the floor the crew's runs are measured against);
//   mode "hand": the same for RUNS kickoffs written by hand, with no framework: one id, the crew's own two
//   messages with the run's topic filled in, one model call, the final answer cut out of the reply;
//   mode "least": the same for RUNS of the least a correct kickoff of this crew does, with crewts's own output
//   types: "hand" plus the replay log reset and written, a TaskOutput, the usage and a CrewOutput;
//   mode "heap": heap used after a forced GC before the batch, and again once every run is waiting
//   on its model (all RUNS in flight), so (peak - before) / RUNS is what one run in flight holds.
import { randomUUID } from "node:crypto";
import { monitorEventLoopDelay } from "node:perf_hooks";
import v8 from "node:v8";
import { Agent, Crew, CrewOutput, InMemoryTaskOutputStore, Task, TaskOutput } from "../../src/index.js";
import type { ChatMessage } from "../../src/llm/types.js";
import { addToUsageMetrics, emptyUsageMetrics } from "../../src/llm/UsageMetrics.js";
import { FakeLLM } from "../../src/testing/index.js";

const [mode = "time", runsArg = "10000", latencyArg = "1000"] = process.argv.slice(2);
const RUNS = Number(runsArg);
const LATENCY = Number(latencyArg);
const gc = (globalThis as { gc?: () => void }).gc;

let onAllInFlight: (() => void) | undefined;
let calls = 0;
// The messages of the crew's first warm-up call, kept as the template of the hand-written kickoff.
let sample: ChatMessage[] | undefined;
// When the first model call of the batch started: no run has finished while less than LATENCY has passed since.
let firstCallAt = 0;
const llm = new FakeLLM(
  (messages) => {
    sample ??= messages.map((m) => ({ ...m }));
    if (++calls === 1) firstCallAt = performance.now();
    if (calls === RUNS) setImmediate(() => onAllInFlight?.());
    return "Thought: I have it\nFinal Answer: done";
  },
  { latencyMs: LATENCY, usage: { promptTokens: 10, completionTokens: 5 }, record: false },
);
// The call options the crew's agent sends: its ReAct stop word.
const CALL_OPTIONS = { stop: ["\nObservation:"] };

const agent = new Agent({ role: "Writer", goal: "Write about {topic}", backstory: "Quick", llm });
const task = new Task({ description: "Write about {topic}", expectedOutput: "a line", agent });
const crew = new Crew({ agents: [agent], tasks: [task], taskOutputStore: new InMemoryTaskOutputStore() });

// Warm-up: the code paths compiled and the crew's lazy parts loaded before anything is measured.
await Promise.all(Array.from({ length: 200 }, (_, i) => crew.kickoff({ topic: `warm-up ${i}` })));
calls = 0;

const inputs = Array.from({ length: RUNS }, (_, i) => ({ topic: `topic ${i}` }));
// "model": the floor, measured the same way: the same number of calls straight to the model, no crew.
// "hand": a kickoff written by hand for this one crew: what any framework's run costs at the least.
// "least": the least a correct kickoff of this crew does, with no framework around crewts's output types.
const start: (input: { topic: string }) => Promise<unknown> =
  mode === "model"
    ? (input) => llm.call([{ role: "system", content: "You are Writer." }, { role: "user", content: `Write about ${input.topic}` }])
    : mode === "hand"
      ? handWrittenKickoff()
      : mode === "least"
        ? leastKickoff()
        : (input) => crew.kickoff(input);
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

/** The crew's own messages of the first warm-up call, split once where its topic stood. */
function messageTemplate(): { role: ChatMessage["role"]; parts: string[] }[] {
  const template = (sample ?? []).map((m) => ({ role: m.role, parts: m.content.split("warm-up 0") }));
  if (template.length === 0 || template.every((m) => m.parts.length === 1)) throw new Error("in-flight child: the warm-up call's messages do not hold its topic");
  return template;
}

/** A kickoff of this crew written by hand: the crew's own messages, one id, one call. */
function handWrittenKickoff(): (input: { topic: string }) => Promise<unknown> {
  const template = messageTemplate();
  return (input) => {
    const id = randomUUID().toLowerCase();
    const startedAt = Date.now();
    const messages = template.map((m) => ({ role: m.role, content: m.parts.join(input.topic) }) as ChatMessage);
    return llm.call(messages, CALL_OPTIONS).then((reply) => {
      const raw = reply.text.slice(reply.text.indexOf("Final Answer:") + "Final Answer:".length).trim();
      return { id, raw, startedAt, endedAt: Date.now(), usage: reply.usage };
    });
  };
}

/**
 * The least a correct kickoff of this crew does, with crewts's own output types and nothing around them:
 * one id, the replay log reset before the model call and written by the latest kickoff after it, the
 * crew's messages, one call, the final answer parsed out (a reply without one is an error), a TaskOutput
 * with the conversation, the usage added up, a CrewOutput. No run copies, events, hooks or pacing.
 */
function leastKickoff(): (input: { topic: string }) => Promise<unknown> {
  const template = messageTemplate();
  const replayLog = new InMemoryTaskOutputStore();
  const usage = emptyUsageMetrics();
  let latest = 0;
  return (input) => {
    const kickoff = ++latest;
    const kickoffId = randomUUID().toLowerCase();
    const messages = template.map((m) => ({ role: m.role, content: m.parts.join(input.topic) }) as ChatMessage);
    return replayLog
      .reset()
      .then(() => llm.call(messages, CALL_OPTIONS))
      .then((reply) => {
        const at = reply.text.indexOf("Final Answer:");
        if (at < 0) throw new Error(`kickoff ${kickoffId}: the reply has no final answer`);
        messages.push({ role: "assistant", content: reply.text });
        const description = `Write about ${input.topic}`;
        const output = new TaskOutput({ description, name: description, expectedOutput: "a line", raw: reply.text.slice(at + "Final Answer:".length).trim(), agent: "Writer", messages });
        const runUsage = addToUsageMetrics(emptyUsageMetrics(), reply.usage);
        addToUsageMetrics(usage, reply.usage);
        if (kickoff === latest) void replayLog.add({ taskId: task.id, expectedOutput: "a line", output: output.toJSON(), taskIndex: 0, inputs: input, wasReplayed: false });
        return CrewOutput.fromTaskOutputs([output], runUsage);
      });
  };
}
