import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { Crew } from "../../src/crew/index.js";
import { eventBus } from "../../src/events/index.js";
import { InMemoryTaskOutputStore } from "../../src/storage/index.js";
import { Task } from "../../src/task/index.js";
import { FakeLLM } from "../../src/testing/index.js";
import { final } from "./helpers.js";

afterEach(() => eventBus.clear());

const topics = Array.from({ length: 50 }, (_, i) => `topic-${i}`);

/** A model that answers with what it was asked about, so a run given another run's texts answers wrong. */
function echoLLM(latencyMs = 2): FakeLLM {
  return new FakeLLM(
    (messages) => {
      const text = messages.map((m) => m.content).join("\n");
      const asked = /Research (topic-\d+)/.exec(text)?.[1] ?? /Summarize (topic-\d+)/.exec(text)?.[1] ?? "nothing";
      const context = /notes on (topic-\d+)/.exec(text)?.[1] ?? "none";
      const role = /You are (\S+) expert/.exec(text)?.[1] ?? "nobody";
      return final(`notes on ${asked} (context ${context}, role ${role})`);
    },
    { latencyMs },
  );
}

function researchCrew(llm: FakeLLM, options: { hierarchical?: boolean } = {}): Crew {
  const agent = new Agent({ role: "{topic} expert", goal: "Know {topic}", backstory: "You study {topic}.", llm });
  const research = new Task({ description: "Research {topic}", expectedOutput: "Notes", agent });
  const summary = new Task({ description: "Summarize {topic}", expectedOutput: "A summary", agent, context: [research] });
  return new Crew({
    agents: [agent],
    tasks: [research, summary],
    taskOutputStore: new InMemoryTaskOutputStore(),
    ...(options.hierarchical ? { process: "hierarchical" as const, managerLLM: llm } : {}),
  });
}

describe("concurrent kickoffs of one crew", () => {
  it("gives each of 50 concurrent kickoffs its own inputs, context and answer", async () => {
    const crew = researchCrew(echoLLM());
    const outputs = await Promise.all(topics.map((topic) => crew.kickoff({ topic })));
    for (const [i, output] of outputs.entries()) {
      const topic = topics[i]!;
      expect(output.tasksOutput[0]!.raw).toBe(`notes on ${topic} (context none, role ${topic})`);
      expect(output.raw).toBe(`notes on ${topic} (context ${topic}, role ${topic})`);
      expect(output.tasksOutput[0]!.description).toBe(`Research ${topic}`);
      expect(output.tokenUsage.successfulRequests).toBe(2);
    }
  });

  it("leaves the shared tasks and agents with the texts as written while runs go on, and with a whole run's results after", async () => {
    const crew = researchCrew(echoLLM());
    const [research, summary] = crew.tasks;
    const seenDuringRuns = new Set<string>();
    eventBus.on("task_started", () => void seenDuringRuns.add(`${research!.description} / ${crew.agents[0]!.role}`));
    await Promise.all(topics.slice(0, 5).map((topic) => crew.kickoff({ topic })));
    expect([...seenDuringRuns]).toEqual(["Research {topic} / {topic} expert"]);
    // The originals show one finished run, as after a direct kickoff.
    const topic = /Research (topic-\d)/.exec(research!.description)![1];
    expect(research!.output!.raw).toContain(`notes on ${topic}`);
    expect(summary!.output).toBeDefined();
    expect(crew.agents[0]!.usageMetrics.successfulRequests).toBe(10);
  });

  it("keeps one whole kickoff for replay, never a mix of concurrent ones", async () => {
    const store = new InMemoryTaskOutputStore();
    // Even topics answer their first task slowly and their second fast, odd topics the other way round.
    const echo = echoLLM(0);
    const llm = new FakeLLM(async (messages, index, options) => {
      const text = messages.map((m) => m.content).join("\n");
      const n = Number(/topic-(\d+)/.exec(text)![1]);
      const first = text.includes("Research topic-");
      await new Promise((resolve) => setTimeout(resolve, (n % 2 === 0) === first ? 5 * n + 20 : 1));
      return echo.call(messages, options).then((r) => r.text);
    });
    const agent = new Agent({ role: "{topic} expert", goal: "Know {topic}", backstory: "b", llm });
    const crew = new Crew({
      agents: [agent],
      tasks: [
        new Task({ description: "Research {topic}", expectedOutput: "Notes", agent }),
        new Task({ description: "Summarize {topic}", expectedOutput: "A summary", agent }),
      ],
      taskOutputStore: store,
    });
    await Promise.all(topics.slice(0, 10).map((topic) => crew.kickoff({ topic })));
    const stored = await store.loadAll();
    expect(stored).toHaveLength(2);
    expect(stored[0]!.inputs).toEqual(stored[1]!.inputs);
    expect(String(stored[1]!.output.raw)).toContain(`notes on ${String(stored[0]!.inputs.topic)}`);
  });

  it("runs concurrent hierarchical kickoffs each with its own manager copy", async () => {
    const llm = echoLLM();
    const crew = researchCrew(llm, { hierarchical: true });
    const outputs = await Promise.all(topics.slice(0, 10).map((topic) => crew.kickoff({ topic })));
    for (const [i, output] of outputs.entries()) expect(output.raw).toContain(`notes on ${topics[i]!}`);
    expect(crew.manager).toBeDefined();
    expect(crew.manager!.crewRpmLimiter).toBeUndefined();
    expect(crew.manager!.toolsCache).toBeUndefined();
  });

  it("events of a run name the crew's own task and agent ids", async () => {
    const crew = researchCrew(echoLLM());
    const seen = new Set<string>();
    eventBus.on("task_started", (event) => void seen.add(`${event.taskId}/${event.agentId}`));
    await Promise.all(topics.slice(0, 3).map((topic) => crew.kickoff({ topic })));
    expect([...seen].sort()).toEqual(crew.tasks.map((t) => `${t.id}/${crew.agents[0]!.id}`).sort());
  });
});

describe("concurrent kickoffs of one agent", () => {
  it("reports each kickoff's own usage", async () => {
    const llm = new FakeLLM((messages) => final(`re: ${/topic-\d+/.exec(messages.map((m) => m.content).join("\n"))![0]}`), { latencyMs: 2, usage: { promptTokens: 3, completionTokens: 2, totalTokens: 5 } });
    const agent = new Agent({ role: "Helper", goal: "Help", backstory: "Helps.", llm });
    const outputs = await Promise.all(topics.slice(0, 20).map((topic) => agent.kickoff(`Tell me about ${topic}`)));
    for (const [i, output] of outputs.entries()) {
      expect(output.raw).toBe(`re: ${topics[i]!}`);
      expect(output.usageMetrics).toEqual({ promptTokens: 3, completionTokens: 2, totalTokens: 5, successfulRequests: 1 });
    }
    expect(agent.usageMetrics.successfulRequests).toBe(20);
  });
});
