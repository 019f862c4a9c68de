// Concurrency scenarios, measured against the ideal wall time: 10 async tasks whose LLM takes
// 200 ms (ideal 200 ms), and kickoffForEach over 1000 inputs at concurrency 50 with 20 ms latency
// (ideal 1000 / 50 x 20 ms = 400 ms).
import { Agent, Crew, InMemoryTaskOutputStore, Task } from "../../src/index.js";
import { sampling, type BenchConfig } from "../lib/config.js";
import { cell, samplesTable, type ResultRow, type ScenarioReport } from "../lib/report.js";
import { compare, type Contender, type Measured } from "../lib/runner.js";
import { formatMs } from "../lib/stats.js";
import { loadKaiban } from "../peers/kaiban.js";
import { finalAnswerLLM } from "./crew.js";

const ASYNC_TASKS = 10;
const ASYNC_LATENCY_MS = 200;
const FOR_EACH_INPUTS = 1000;
const FOR_EACH_CONCURRENCY = 50;
const FOR_EACH_LATENCY_MS = 20;
const TOLERANCE = 1.1;

function idealRow(scenario: string, m: Measured | undefined, idealMs: number): ResultRow {
  const row: ResultRow = { group: "concurrency", scenario, unit: "wall time per run", crewts: cell(m), against: "ideal", other: formatMs(idealMs), goal: "within 10% of ideal" };
  if (m?.summary) {
    row.ratio = m.summary.median / idealMs;
    row.met = row.ratio <= TOLERANCE && !m.mismatch;
  }
  return row;
}

/** Ten async tasks, each by its own agent with a 200 ms model, then a summary task (zero latency) that reads them all. */
function asyncCrew(): { crew: Crew; calls: () => number } {
  const llms = Array.from({ length: ASYNC_TASKS }, () => finalAnswerLLM(ASYNC_LATENCY_MS));
  const parts = llms.map((llm, i) => {
    const agent = new Agent({ role: `Researcher ${i}`, goal: "Research", backstory: "Thorough", llm });
    return new Task({ description: `Research part ${i}`, expectedOutput: "notes", agent, asyncExecution: true, context: [] });
  });
  const editorLLM = finalAnswerLLM(0);
  const editor = new Agent({ role: "Editor", goal: "Summarize", backstory: "Concise", llm: editorLLM });
  const summary = new Task({ description: "Summarize the parts", expectedOutput: "a summary", agent: editor, context: parts });
  const crew = new Crew({ agents: [...parts.map((t) => t.agent!), editor], tasks: [...parts, summary], taskOutputStore: new InMemoryTaskOutputStore() });
  return { crew, calls: () => llms.reduce((n, l) => n + l.callCount, 0) + editorLLM.callCount };
}

/** Runs the concurrency scenarios. */
export async function concurrencyScenarios(config: BenchConfig): Promise<ScenarioReport> {
  const { warmup, samples } = sampling(config);
  const opts = { warmup, samples: Math.min(samples, config.full ? 5 : 3) };
  const { kaiban, fakeModel } = await loadKaiban();

  // 1. Ten async tasks, crewts against the ideal, and KaibanJS with parallel tasks for reference.
  let crewtsCalls = -1;
  const crewtsAsync: Contender = {
    name: "crewts",
    run: async () => {
      const { crew, calls } = asyncCrew();
      await crew.kickoff();
      crewtsCalls = calls();
    },
    verify: () => (crewtsCalls === ASYNC_TASKS + 1 ? undefined : `${crewtsCalls} LLM calls, expected ${ASYNC_TASKS + 1}`),
  };
  let kaibanCalls = -1;
  const kaibanAsync: Contender = {
    name: "KaibanJS",
    run: async () => {
      const models = Array.from({ length: ASYNC_TASKS }, () => fakeModel({ latencyMs: ASYNC_LATENCY_MS }));
      const editorModel = fakeModel();
      // KaibanJS never runs two tasks of one agent at once, so each parallel task has its own agent, as in crewts.
      const agents = models.map((llm, i) => new kaiban.Agent({ name: `Researcher ${i}`, role: "Researcher", goal: "Research", background: "Thorough", llmInstance: llm }));
      const editor = new kaiban.Agent({ name: "Editor", role: "Editor", goal: "Summarize", background: "Concise", llmInstance: editorModel });
      const parts = agents.map((agent, i) => new kaiban.Task({ referenceId: `part${i}`, description: `Research part ${i}`, expectedOutput: "notes", agent, allowParallelExecution: true }));
      const summary = new kaiban.Task({ description: "Summarize the parts", expectedOutput: "a summary", agent: editor, dependencies: parts.map((_, i) => `part${i}`) });
      const team = new kaiban.Team({ name: "bench", agents: [...agents, editor], tasks: [...parts, summary], logLevel: "error" });
      const out = await team.start();
      if (String(out.status) !== "FINISHED") throw new Error(`KaibanJS team ended ${out.status}`);
      kaibanCalls = models.reduce((n, m) => n + m.calls, 0) + editorModel.calls;
    },
    verify: () => (kaibanCalls === ASYNC_TASKS + 1 ? undefined : `${kaibanCalls} LLM calls, expected ${ASYNC_TASKS + 1}`),
  };
  const asyncMeasured = await compare([crewtsAsync, kaibanAsync], opts);
  const asyncTitle = `${ASYNC_TASKS} async tasks, ${ASYNC_LATENCY_MS} ms LLM latency (+ a summary task)`;

  // 2. kickoffForEach over 1000 inputs at concurrency 50, with the default SQLite store and with the in-memory one.
  const forEach = (name: string, inMemoryStore: boolean): Contender => {
    let calls = -1;
    return {
      name,
      run: async () => {
        const llm = finalAnswerLLM(FOR_EACH_LATENCY_MS);
        const agent = new Agent({ role: "Writer", goal: "Write about {topic}", backstory: "Quick", llm });
        const task = new Task({ description: "Write about {topic}", expectedOutput: "a line", agent });
        const crew = new Crew({ agents: [agent], tasks: [task], ...(inMemoryStore ? { taskOutputStore: new InMemoryTaskOutputStore() } : {}) });
        const inputs = Array.from({ length: FOR_EACH_INPUTS }, (_, i) => ({ topic: `topic ${i}` }));
        const outputs = await crew.kickoffForEach(inputs, { concurrency: FOR_EACH_CONCURRENCY });
        if (outputs.length !== FOR_EACH_INPUTS) throw new Error(`kickoffForEach returned ${outputs.length} outputs`);
        // The crew's copies share the agent's model: one call per input.
        calls = llm.callCount;
      },
      verify: () => (calls === FOR_EACH_INPUTS ? undefined : `${calls} LLM calls, expected ${FOR_EACH_INPUTS}`),
    };
  };
  const forEachMeasured = await compare([forEach("crewts", false), forEach("crewts, in-memory task output store", true)], opts);
  const idealForEach = (FOR_EACH_INPUTS / FOR_EACH_CONCURRENCY) * FOR_EACH_LATENCY_MS;
  const forEachTitle = `kickoffForEach over ${FOR_EACH_INPUTS} inputs, concurrency ${FOR_EACH_CONCURRENCY}, ${FOR_EACH_LATENCY_MS} ms LLM latency`;

  const ours = asyncMeasured.find((m) => m.name === "crewts");
  const kaibanM = asyncMeasured.find((m) => m.name === "KaibanJS");
  const kaibanRow: ResultRow = { group: "concurrency", scenario: asyncTitle, unit: "wall time per run", crewts: cell(ours), against: "KaibanJS", other: cell(kaibanM) };
  if (ours?.summary && kaibanM?.summary) kaibanRow.ratio = ours.summary.median / kaibanM.summary.median;
  return {
    group: "concurrency",
    rows: [
      idealRow(asyncTitle, ours, ASYNC_LATENCY_MS),
      kaibanRow,
      idealRow(`${forEachTitle} (default SQLite task output store)`, forEachMeasured.find((m) => m.name === "crewts"), idealForEach),
      idealRow(`${forEachTitle} (InMemoryTaskOutputStore)`, forEachMeasured.find((m) => m.name === "crewts, in-memory task output store"), idealForEach),
    ],
    details: [
      `Async tasks: each of the ${ASYNC_TASKS} tasks has its own agent and model (KaibanJS runs at most one task per agent at a time), ` +
        "and a final task of a zero-latency agent reads all of them; the ideal is one model latency. KaibanJS is given the same team " +
        "with `allowParallelExecution` tasks and a dependent summary task.",
      samplesTable(asyncTitle, asyncMeasured, "wall time per run"),
      `kickoffForEach: a one-task crew; the ideal is ${FOR_EACH_INPUTS} / ${FOR_EACH_CONCURRENCY} x ${FOR_EACH_LATENCY_MS} ms = ${idealForEach} ms.`,
      samplesTable(forEachTitle, forEachMeasured, "wall time per run"),
    ],
  };
}
