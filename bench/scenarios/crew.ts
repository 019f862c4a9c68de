// Crew scenario: 20 sequential tasks, one LLM call each with a zero-latency fake model; crewts
// against KaibanJS. The number per task is the orchestration overhead: the model answers at once.
import { Agent, Crew, InMemoryTaskOutputStore, Task } from "../../src/index.js";
import { FakeLLM } from "../../src/testing/index.js";
import { sampling, type BenchConfig } from "../lib/config.js";
import { pairRows, samplesTable, type ScenarioReport } from "../lib/report.js";
import { compare, type Contender } from "../lib/runner.js";
import { loadKaiban } from "../peers/kaiban.js";

const TASKS = 20;

/** A crewts crew of one agent and `tasks` sequential tasks; `llm` answers each task in one call. */
export function crewtsCrew(llm: FakeLLM, tasks: number, inMemoryStore: boolean): Crew {
  const agent = new Agent({ role: "Writer", goal: "Write the parts", backstory: "Careful and quick", llm });
  const list = Array.from({ length: tasks }, (_, i) => new Task({ description: `Task ${i}: write part ${i}`, expectedOutput: "a paragraph", agent }));
  return new Crew({ agents: [agent], tasks: list, ...(inMemoryStore ? { taskOutputStore: new InMemoryTaskOutputStore() } : {}) });
}

/**
 * The crewts fake model: every call is a final answer in CrewAI's text protocol. It counts calls
 * without keeping a copy of each prompt (record: false), as the peers' fake models do: that copy is
 * test tooling, not framework overhead.
 */
export const finalAnswerLLM = (latencyMs = 0): FakeLLM =>
  new FakeLLM(() => "Thought: I have it\nFinal Answer: done", { latencyMs, usage: { promptTokens: 10, completionTokens: 5 }, record: false });

/** Runs the crew scenario. */
export async function crewScenarios(config: BenchConfig): Promise<ScenarioReport> {
  const { kaiban, fakeModel } = await loadKaiban();
  const callCount = (name: string, calls: number) => (calls === TASKS ? undefined : `${name}: ${calls} LLM calls, expected ${TASKS}`);

  const crewtsContender = (name: string, inMemoryStore: boolean): Contender => {
    let calls = -1;
    return {
      name,
      run: async () => {
        const llm = finalAnswerLLM();
        const out = await crewtsCrew(llm, TASKS, inMemoryStore).kickoff();
        if (out.tasksOutput.length !== TASKS) throw new Error(`crewts ran ${out.tasksOutput.length} tasks`);
        calls = llm.callCount;
      },
      verify: () => callCount(name, calls),
    };
  };
  let kaibanCalls = -1;
  const kaibanContender: Contender = {
    name: "KaibanJS",
    run: async () => {
      const llm = fakeModel();
      const agent = new kaiban.Agent({ name: "Writer", role: "Writer", goal: "Write the parts", background: "Careful and quick", llmInstance: llm });
      const tasks = Array.from({ length: TASKS }, (_, i) => new kaiban.Task({ description: `Task ${i}: write part ${i}`, expectedOutput: "a paragraph", agent }));
      const team = new kaiban.Team({ name: "bench", agents: [agent], tasks, logLevel: "error" });
      const out = await team.start();
      if (String(out.status) !== "FINISHED") throw new Error(`KaibanJS team ended ${out.status}`);
      kaibanCalls = llm.calls;
    },
    verify: () => callCount("KaibanJS", kaibanCalls),
  };

  const measured = await compare([crewtsContender("crewts", false), crewtsContender("crewts, in-memory task output store", true), kaibanContender], {
    ...sampling(config),
    divisor: TASKS,
  });
  const scenario = `${TASKS} sequential tasks, zero-latency LLM`;
  return {
    group: "crew",
    rows: [
      ...pairRows("crew", `${scenario} (default SQLite task output store)`, "per task", measured, 1 / 5, { peers: ["KaibanJS"] }),
      ...pairRows("crew", `${scenario} (InMemoryTaskOutputStore)`, "per task", measured, undefined, { ours: "crewts, in-memory task output store", peers: ["KaibanJS"] }),
    ],
    details: [
      "Each run builds the agent, the tasks and the crew (team) and kicks it off; one agent does every task with one LLM call. " +
        "crewts by default records each task output in its SQLite task output store (for `replay`), as CrewAI does; " +
        "KaibanJS keeps its logs in memory, so crewts is also measured with `InMemoryTaskOutputStore`.",
      samplesTable(scenario, measured, "per task"),
    ],
  };
}
