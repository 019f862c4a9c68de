import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  Agent,
  Crew,
  CrewValidationError,
  eventBus,
  ExternalMemory,
  LongTermMemory,
  Mem0Provider,
  ShortTermMemory,
  Task,
  tool,
  type ChatMessage,
  type EventType,
} from "../../src/index.js";
import { FakeLLM } from "../../src/testing/index.js";
import { startFakeMem0 } from "./mem0Server.js";

const EVALUATOR = "You review the work of AI agents";
const EVALUATION = JSON.stringify({
  quality: 8,
  suggestions: ["Always give the engine's thrust in kilonewtons"],
  entities: [{ name: "Acme Rockets", type: "organization", description: "Builds the Falcon engine in Toulouse", relationships: ["builds Falcon engine"] }],
});

const system = (messages: ChatMessage[]) => messages.find((m) => m.role === "system")?.content ?? "";
const user = (messages: ChatMessage[]) => messages.filter((m) => m.role === "user").map((m) => m.content).join("\n");
const isEvaluation = (messages: ChatMessage[]) => system(messages).includes(EVALUATOR);

/** A model that evaluates when asked to, and otherwise answers each task by a word in it. */
function scriptedLLM(): FakeLLM {
  return new FakeLLM((messages) => {
    if (isEvaluation(messages)) return EVALUATION;
    const prompt = user(messages);
    if (prompt.includes("Research the Falcon")) return "Thought: done\nFinal Answer: The Falcon engine by Acme Rockets has 845 kN of thrust.";
    return "Thought: done\nFinal Answer: Summary written.";
  });
}

function crewWith(llm: FakeLLM, extra: Partial<ConstructorParameters<typeof Crew>[0]> = {}, agentExtra: Partial<ConstructorParameters<typeof Agent>[0]> = {}) {
  const agent = new Agent({ role: "Engine analyst", goal: "Know rocket engines", backstory: "Precise.", llm, ...agentExtra });
  const research = new Task({ description: "Research the Falcon rocket engine", expectedOutput: "Facts about the Falcon engine", agent });
  const summary = new Task({ description: "Summarize what we know about the Falcon engine thrust", expectedOutput: "A short summary", agent, context: [] });
  return new Crew({ agents: [agent], tasks: [research, summary], memory: true, ...extra });
}

const taskPrompts = (llm: FakeLLM) => llm.calls.filter((c) => !isEvaluation(c.messages)).map((c) => user(c.messages));

const offs: (() => void)[] = [];
afterEach(() => {
  for (const off of offs.splice(0)) off();
  vi.restoreAllMocks();
});
function count(types: EventType[]): Map<EventType, number> {
  const counts = new Map<EventType, number>();
  for (const type of types) offs.push(eventBus.on(type, () => void counts.set(type, (counts.get(type) ?? 0) + 1)));
  return counts;
}

describe("crew memory", () => {
  it("recalls within a run (short-term) and across runs (long-term suggestions, entities by name)", async () => {
    const llm = scriptedLLM();
    const events = count(["memory_save_completed", "memory_query_completed", "memory_retrieval_completed"]);
    const first = await crewWith(llm).kickoff();
    expect(first.tasksOutput).toHaveLength(2);
    const [research, summary] = taskPrompts(llm);
    // Nothing remembered yet for the first task; the second sees the first's output (the context was cut, memory was not).
    expect(research).not.toContain("Useful context from memory");
    expect(summary).toContain("Recent Insights:");
    expect(summary).toContain("845 kN of thrust");
    expect(events.get("memory_save_completed")).toBeGreaterThanOrEqual(4);
    expect(events.get("memory_retrieval_completed")).toBe(2);

    const llm2 = scriptedLLM();
    await crewWith(llm2).kickoff();
    const [research2] = taskPrompts(llm2);
    expect(research2).toContain("Historical Data:");
    expect(research2).toContain("Always give the engine's thrust in kilonewtons");
    expect(research2).toContain("Entities:");
    expect(research2).toContain("Acme Rockets");
    // Short-term memory belongs to its run.
    expect(research2).not.toContain("Recent Insights:");
  });

  it("counts the evaluation calls in the crew's token usage", async () => {
    const llm = scriptedLLM();
    const crew = crewWith(llm);
    const output = await crew.kickoff();
    expect(llm.calls.filter((c) => isEvaluation(c.messages))).toHaveLength(2);
    expect(output.tokenUsage.successfulRequests).toBe(4);
  });

  it("resets each kind, and 'memory' resets them all", async () => {
    const llm = scriptedLLM();
    const crew = crewWith(llm);
    await crew.kickoff();
    await crew.resetMemories("long");
    const afterLong = scriptedLLM();
    await crewWith(afterLong).kickoff();
    const [prompt] = taskPrompts(afterLong);
    expect(prompt).not.toContain("Historical Data:");
    expect(prompt).toContain("Entities:");

    await crew.resetMemories("memory");
    const afterAll = scriptedLLM();
    await crewWith(afterAll).kickoff();
    expect(taskPrompts(afterAll)[0]).not.toContain("Useful context from memory");
    await expect(crew.resetMemories("external")).rejects.toThrow("External memory is not enabled on crew 'crew'");
  });

  it("remembers tool results in short-term memory", async () => {
    const lookup = tool({ name: "thrust_lookup", description: "Looks up an engine's thrust", schema: z.object({ engine: z.string() }), execute: ({ engine }) => `${engine}: 912 kN sea level` });
    let step = 0;
    const llm = new FakeLLM((messages) => {
      if (isEvaluation(messages)) return EVALUATION;
      if (user(messages).includes("Research the Falcon")) {
        step++;
        return step === 1 ? 'Thought: look it up\nAction: thrust_lookup\nAction Input: {"engine": "Raptor"}' : "Thought: done\nFinal Answer: Looked it up.";
      }
      return "Thought: done\nFinal Answer: Summary written.";
    });
    await crewWith(llm, {}, { tools: [lookup] }).kickoff();
    const summary = taskPrompts(llm).at(-1) ?? "";
    expect(summary).toContain('thrust_lookup({"engine": "Raptor"}) returned: Raptor: 912 kN sea level');
  });

  it("leaves out agents with memory: false", async () => {
    const llm = scriptedLLM();
    await crewWith(llm, {}, { memory: false }).kickoff();
    expect(llm.calls.some((c) => isEvaluation(c.messages))).toBe(false);
    expect(taskPrompts(llm).some((p) => p.includes("Useful context from memory"))).toBe(false);
  });

  it("uses explicit memories, and an external memory over HTTP (Mem0's REST API)", async () => {
    const mem0 = await startFakeMem0();
    try {
      const llm = new FakeLLM((messages) => (user(messages).includes("Research") ? "Final Answer: The Falcon engine thrust is 845 kN." : "Final Answer: ok"));
      const externalMemory = new ExternalMemory({ provider: new Mem0Provider({ apiKey: mem0.apiKey, baseURL: mem0.url, userId: "team-a" }) });
      const shortTermMemory = new ShortTermMemory();
      const crew = crewWith(llm, { memory: false, externalMemory, shortTermMemory });
      await crew.kickoff();
      // No long-term or entity memory: no evaluation call.
      expect(llm.calls).toHaveLength(2);
      const summary = user(llm.calls[1]!.messages);
      expect(summary).toContain("External memories:");
      expect(summary).toContain("The Falcon engine thrust is 845 kN");
      expect(mem0.memories.length).toBeGreaterThanOrEqual(2);
      expect(mem0.requests.every((r) => r.headers.authorization === `Token ${mem0.apiKey}`)).toBe(true);
      await crew.resetMemories("external");
      expect(mem0.memories).toHaveLength(0);
    } finally {
      await mem0.close();
    }
  });

  it("reads CrewAI's memoryConfig { provider: 'mem0', config: { user_id } } as an external memory on Mem0", async () => {
    const mem0 = await startFakeMem0();
    try {
      const llm = new FakeLLM((messages) => (user(messages).includes("Research") ? "Final Answer: The Falcon engine thrust is 845 kN." : "Final Answer: ok"));
      const memoryConfig = { provider: "mem0" as const, config: { user_id: "john", api_key: mem0.apiKey, base_url: mem0.url } };
      const crew = crewWith(llm, { memory: false, memoryConfig });
      await crew.kickoff();
      expect(user(llm.calls[1]!.messages)).toContain("The Falcon engine thrust is 845 kN");
      expect(mem0.requests.find((r) => r.path === "/v1/memories/")?.body).toMatchObject({ user_id: "john" });
      expect(() => crewWith(llm, { memoryConfig: { provider: "zep" as never } })).toThrow(/only memory provider is "mem0"/);
      expect(() => crewWith(llm, { memoryConfig: { config: { user_id: "x" } } })).toThrow(/memoryConfig.config needs provider/);
    } finally {
      await mem0.close();
    }
  });

  it("finishes the kickoff when a memory write fails, with a warning and an event", async () => {
    const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
    const failed = count(["memory_save_failed"]);
    // A database path under a regular file cannot be created.
    const blocker = join(mkdtempSync(join(tmpdir(), "crewts-memory-")), "a-file");
    writeFileSync(blocker, "");
    const broken = new ShortTermMemory({ path: join(blocker, "short.db") });
    const output = await crewWith(scriptedLLM(), { shortTermMemory: broken }).kickoff();
    expect(output.raw).toBe("Summary written.");
    expect(failed.get("memory_save_failed")).toBeGreaterThanOrEqual(1);
    expect(warn.mock.calls.some((call) => call[1]?.code === "CREWTS_MEMORY")).toBe(true);
  });

  it("shares the crew's memories with kickoffForEach's copies", async () => {
    const llm = scriptedLLM();
    const crew = crewWith(llm);
    await crew.kickoffForEach([{}, {}], { concurrency: 2 });
    const later = scriptedLLM();
    await crewWith(later).kickoff();
    expect(taskPrompts(later)[0]).toContain("Historical Data:");
  });

  it("does not hold the next task for the evaluation call, and waits for it before kickoff returns", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const seen: string[] = [];
    const evaluator = new FakeLLM(async () => {
      seen.push("evaluation started");
      await gate;
      seen.push("evaluation answered");
      return EVALUATION;
    });
    const llm = new FakeLLM((messages) => {
      const prompt = user(messages);
      seen.push(prompt.includes("Research the Falcon") ? "research" : "summary");
      // The summary task runs while the first evaluation still waits: let it finish now.
      if (!prompt.includes("Research the Falcon")) release();
      return "Thought: done\nFinal Answer: ok";
    });
    let completed = 0;
    offs.push(eventBus.on("memory_save_completed", (event) => void (event.memoryKind === "long" && completed++)));
    const output = await crewWith(llm, { longTermMemory: new LongTermMemory({ llm: evaluator }) }).kickoff();
    expect(seen.slice(0, 3)).toEqual(["research", "evaluation started", "summary"]);
    // Both evaluations were saved before kickoff returned, and their tokens are in the crew's usage.
    expect(completed).toBe(2);
    expect(evaluator.calls).toHaveLength(2);
    expect(output.tokenUsage.successfulRequests).toBe(4);
  });

  it("keeps CrewAI's call order for a scripted model: task, its evaluation, next task, its evaluation", async () => {
    const llm = new FakeLLM(["Thought: done\nFinal Answer: The Falcon engine has 845 kN.", EVALUATION, "Thought: done\nFinal Answer: Summary written.", EVALUATION]);
    const output = await crewWith(llm).kickoff();
    expect(output.raw).toBe("Summary written.");
    expect(llm.calls.map((c) => isEvaluation(c.messages))).toEqual([false, true, false, true]);
  });

  it("rejects memory options that are not memories", () => {
    const llm = scriptedLLM();
    expect(() => crewWith(llm, { shortTermMemory: {} as never })).toThrow(CrewValidationError);
    expect(() => crewWith(llm, { longTermMemory: new ShortTermMemory() as never })).toThrow(/new LongTermMemory/);
    expect(() => crewWith(llm, { memoryConfig: { tokenBudget: -1 } })).toThrow(/memoryConfig\.tokenBudget/);
    expect(() => crewWith(llm, { longTermMemory: new LongTermMemory() })).not.toThrow();
  });
});
