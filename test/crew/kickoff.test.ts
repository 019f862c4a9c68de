import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { Agent, type AgentStep, type RpmLimiter } from "../../src/agent/index.js";
import { Crew, CrewMemoryError, CrewOutput } from "../../src/crew/index.js";
import { eventBus, type CrewtsEvent } from "../../src/events/index.js";
import type { TaskOutput } from "../../src/task/index.js";
import { FakeLLM } from "../../src/testing/index.js";
import { tool } from "../../src/tools/index.js";
import { action, allText, fakeAgent, final, task, userText } from "./helpers.js";

afterEach(() => {
  eventBus.clear();
  vi.restoreAllMocks();
});

describe("kickoff hooks and inputs", () => {
  it("lets before-kickoff hooks change the inputs and after-kickoff hooks the output", async () => {
    const a = fakeAgent("Researcher", [final("facts about cats")]);
    const seen: unknown[] = [];
    const crew = new Crew({
      agents: [a.agent],
      tasks: [task("Research {topic} for {audience}", a.agent)],
      beforeKickoff: [(inputs) => ({ ...inputs, topic: "cats" }), async (inputs) => {
        seen.push({ ...inputs });
      }],
      afterKickoff: [
        (output) => new CrewOutput({ raw: output.raw.toUpperCase(), tasksOutput: output.tasksOutput, tokenUsage: output.tokenUsage }),
        async (output) => {
          seen.push(output.raw);
        },
      ],
    });
    const output = await crew.kickoff({ audience: "kids" });
    expect(userText(a.llm)).toContain("Research cats for kids");
    expect(seen).toEqual([{ audience: "kids", topic: "cats" }, "FACTS ABOUT CATS"]);
    expect(output.raw).toBe("FACTS ABOUT CATS");
  });

  it("rejects inputs that are not a plain object", async () => {
    const a = fakeAgent("Researcher", []);
    const crew = new Crew({ agents: [a.agent], tasks: [task("a", a.agent)] });
    await expect(crew.kickoff(["topic"] as unknown as Record<string, unknown>)).rejects.toThrow("kickoff inputs must be a plain object");
  });

  it("gives before-kickoff hooks an empty object when kickoff has no inputs", async () => {
    const a = fakeAgent("Researcher", [final("ok")]);
    const crew = new Crew({ agents: [a.agent], tasks: [task("About {topic}", a.agent)], beforeKickoff: [(inputs) => ({ ...inputs, topic: "dogs" })] });
    await crew.kickoff();
    expect(userText(a.llm)).toContain("About dogs");
  });

  it("fills inputs into tasks and agents, from the original texts on every kickoff", async () => {
    const llm = new FakeLLM(() => final("ok"));
    const a = fakeAgent("{field} Researcher", [], {}, { goal: "Understand {topic}", llm });
    const crew = new Crew({ agents: [a.agent], tasks: [task("Research {topic}", a.agent, { expectedOutput: "Notes on {topic}" })] });
    await crew.kickoff({ field: "AI", topic: "agents" });
    expect(allText(llm, 0)).toContain("You are AI Researcher.");
    expect(allText(llm, 0)).toContain("Understand agents");
    expect(userText(llm, 0)).toContain("Research agents");
    expect(userText(llm, 0)).toContain("Notes on agents");
    await crew.kickoff({ field: "Bio", topic: "cells" });
    expect(allText(llm, 1)).toContain("You are Bio Researcher.");
    expect(userText(llm, 1)).toContain("Research cells");
  });
});

describe("task callback and output log file", () => {
  it("calls taskCallback after every task, after the task's own callback (CrewAI)", async () => {
    const a = fakeAgent("Researcher", [final("one")]);
    const b = fakeAgent("Writer", [final("two")]);
    const seen: string[] = [];
    const crew = new Crew({
      agents: [a.agent, b.agent],
      tasks: [task("a", a.agent), task("b", b.agent, { callback: (o: TaskOutput) => void seen.push(`own: ${o.raw}`) })],
      taskCallback: async (output) => {
        seen.push(`crew: ${output.raw}`);
      },
    });
    await crew.kickoff();
    expect(seen).toEqual(["crew: one", "own: two", "crew: two"]);
  });

  it("calls a callback that is both the task's and the crew's once per task", async () => {
    const a = fakeAgent("Researcher", [final("one")]);
    const seen: string[] = [];
    const callback = (o: TaskOutput): void => void seen.push(o.raw);
    await new Crew({ agents: [a.agent], tasks: [task("a", a.agent, { callback })], taskCallback: callback }).kickoff();
    expect(seen).toEqual(["one"]);
  });

  it("appends one JSON line per finished task", async () => {
    const dir = await mkdtemp(join(tmpdir(), "crewts-log-"));
    try {
      const path = join(dir, "nested", "crew-log.txt");
      const a = fakeAgent("Researcher", [final("one")]);
      const b = fakeAgent("Writer", [final("two")], { latencyMs: 20 });
      const crew = new Crew({
        agents: [a.agent, b.agent],
        tasks: [task("first task", a.agent, { name: "first" }), task("second task", b.agent, { asyncExecution: true })],
        outputLogFile: path,
      });
      await crew.kickoff();
      const lines = (await readFile(path, "utf8")).trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatchObject({ taskName: "first", task: "first task", agent: "Researcher", status: "completed", output: "one" });
      expect(lines[1]).toMatchObject({ task: "second task", agent: "Writer", status: "completed", output: "two" });
      expect(Number.isNaN(Date.parse(String(lines[0]!.timestamp)))).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("writes ./logs.txt for outputLogFile: true", async () => {
    const dir = await mkdtemp(join(tmpdir(), "crewts-log-"));
    const cwd = process.cwd();
    try {
      process.chdir(dir);
      const a = fakeAgent("Researcher", [final("one")]);
      await new Crew({ agents: [a.agent], tasks: [task("a", a.agent)], outputLogFile: true }).kickoff();
      expect((await readFile(join(dir, "logs.txt"), "utf8")).trim().split("\n")).toHaveLength(1);
    } finally {
      process.chdir(cwd);
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("tool cache and request limit", () => {
  const lookupTool = () => {
    const execute = vi.fn(({ q }: { q: string }) => `result for ${q}`);
    return { execute, lookup: tool({ name: "lookup", description: "Looks things up", schema: z.object({ q: z.string() }), execute }) };
  };
  const script = () => [action("lookup", { q: "x" }), final("done")];

  it("shares tool results across agents within one kickoff, not across kickoffs", async () => {
    const { execute, lookup } = lookupTool();
    const a = fakeAgent("Researcher", [...script(), ...script()], {}, { tools: [lookup] });
    const b = fakeAgent("Analyst", [...script(), ...script()], {}, { tools: [lookup] });
    const crew = new Crew({ agents: [a.agent, b.agent], tasks: [task("a", a.agent), task("b", b.agent)] });
    await crew.kickoff();
    expect(execute).toHaveBeenCalledTimes(1);
    expect(allText(b.llm, 1)).toContain("Observation: result for x");
    expect(a.agent.toolsCache).toBeUndefined();
    expect(b.agent.toolsCache).toBeUndefined();
    await crew.kickoff();
    expect(execute).toHaveBeenCalledTimes(2);
  });

  it("runs the tool every time with cache: false", async () => {
    const { execute, lookup } = lookupTool();
    const a = fakeAgent("Researcher", script(), {}, { tools: [lookup] });
    const b = fakeAgent("Analyst", script(), {}, { tools: [lookup] });
    await new Crew({ agents: [a.agent, b.agent], tasks: [task("a", a.agent), task("b", b.agent)], cache: false }).kickoff();
    expect(execute).toHaveBeenCalledTimes(2);
  });

  it("puts one request limiter on every agent for the kickoff and removes it after", async () => {
    // A kickoff works on copies of the agents (see RunMembers): watch those.
    const copies = vi.spyOn(Agent.prototype, "copyForRun");
    const runAgents = (): Agent[] => copies.mock.results.map((result) => result.value as Agent);
    const limiters: (RpmLimiter | undefined)[] = [];
    const seeLimiter = (role: string) => (): string => {
      limiters.push(runAgents().find((agent) => agent.role === role)?.crewRpmLimiter as RpmLimiter | undefined);
      return final(role);
    };
    const a = fakeAgent("Researcher", seeLimiter("Researcher"));
    const b = fakeAgent("Analyst", seeLimiter("Analyst"));
    await new Crew({ agents: [a.agent, b.agent], tasks: [task("a", a.agent), task("b", b.agent)], maxRpm: 10 }).kickoff();
    expect(runAgents().map((agent) => agent.id)).toEqual([a.agent.id, b.agent.id]);
    expect(limiters).toHaveLength(2);
    expect(limiters[0]).toBeDefined();
    expect(limiters[1]).toBe(limiters[0]);
    expect(limiters[0]!.maxRpm).toBe(10);
    expect(limiters[0]!.inWindow).toBe(2);
    for (const agent of [a.agent, b.agent, ...runAgents()]) expect(agent.crewRpmLimiter).toBeUndefined();
  });

  it("sets no limiter without maxRpm", async () => {
    let seen: RpmLimiter | undefined;
    const a = fakeAgent("Researcher", () => {
      seen = a.agent.crewRpmLimiter as RpmLimiter | undefined;
      return final("a");
    });
    await new Crew({ agents: [a.agent], tasks: [task("a", a.agent)] }).kickoff();
    expect(seen).toBeUndefined();
  });
});

describe("step callback", () => {
  it("lends the crew's step callback to agents without one, for the kickoff only", async () => {
    const steps: AgentStep[] = [];
    const own: AgentStep[] = [];
    const a = fakeAgent("Researcher", [final("a")]);
    const b = fakeAgent("Writer", [final("b")], {}, { stepCallback: (step) => void own.push(step) });
    await new Crew({ agents: [a.agent, b.agent], tasks: [task("a", a.agent), task("b", b.agent)], stepCallback: (step) => void steps.push(step) }).kickoff();
    expect(steps.map((s) => s.output)).toEqual(["a"]);
    expect(own.map((s) => s.output)).toEqual(["b"]);
    expect(a.agent.options.stepCallback).toBeUndefined();
  });
});

describe("events", () => {
  it("emits crew_kickoff_started and crew_kickoff_completed with the crew's id and name", async () => {
    const events: CrewtsEvent[] = [];
    eventBus.onAny((event) => void events.push(event));
    const a = fakeAgent("Researcher", [final("done")], { usage: { promptTokens: 3, completionTokens: 2, totalTokens: 5 } });
    const crew = new Crew({ agents: [a.agent], tasks: [task("a {x}", a.agent)], name: "research crew" });
    await crew.kickoff({ x: "1" });
    const started = events.find((e) => e.type === "crew_kickoff_started") as CrewtsEvent<"crew_kickoff_started">;
    const completed = events.find((e) => e.type === "crew_kickoff_completed") as CrewtsEvent<"crew_kickoff_completed">;
    expect(started).toMatchObject({ crewId: crew.id, crewName: "research crew", inputs: { x: "1" } });
    expect(completed).toMatchObject({ crewId: crew.id, crewName: "research crew", output: "done" });
    expect(completed.tokenUsage).toEqual({ promptTokens: 3, completionTokens: 2, totalTokens: 5, successfulRequests: 1 });
    const types = events.map((e) => e.type);
    expect(types.indexOf("crew_kickoff_started")).toBeLessThan(types.indexOf("task_started"));
    expect(types.at(-1)).toBe("crew_kickoff_completed");
    // Task events carry the crew's id.
    expect(events.find((e) => e.type === "task_started")).toMatchObject({ crewId: crew.id });
  });

  it("emits crew_kickoff_failed and rethrows", async () => {
    const failed: CrewtsEvent<"crew_kickoff_failed">[] = [];
    eventBus.on("crew_kickoff_failed", (event) => void failed.push(event));
    const a = fakeAgent("Researcher", () => new Error("boom"), {}, { maxRetryLimit: 0 });
    const crew = new Crew({ agents: [a.agent], tasks: [task("a", a.agent)] });
    await expect(crew.kickoff()).rejects.toThrow("boom");
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ crewId: crew.id, crewName: "crew" });
    expect(failed[0]!.error).toContain("boom");
    const hookCrew = new Crew({
      agents: [a.agent],
      tasks: [task("a", a.agent)],
      beforeKickoff: [() => {
        throw new Error("bad inputs");
      }],
    });
    await expect(hookCrew.kickoff()).rejects.toThrow("bad inputs");
    expect(failed.at(-1)!.error).toBe("bad inputs");
  });
});

describe("memory options and resetMemories", () => {
  it("takes memory: true and an embedder as working options, without warnings", async () => {
    const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
    const a = fakeAgent("Researcher", []);
    const crew = new Crew({ agents: [a.agent], tasks: [task("a", a.agent)], memory: true, embedder: "openai/text-embedding-3-small", knowledgeSources: [] });
    // Enabled memories can be reset; a crew without memory refuses (see below).
    await expect(crew.resetMemories("short")).resolves.toBeUndefined();
    expect(warn.mock.calls.map((call) => call[1]?.code)).not.toContain("CREWTS_INACTIVE_OPTION");
  });

  it("clears kickoff outputs, and refuses memories the crew does not have", async () => {
    const a = fakeAgent("Researcher", []);
    const crew = new Crew({ agents: [a.agent], tasks: [task("a", a.agent)] });
    await expect(crew.resetMemories("kickoff_outputs")).resolves.toBeUndefined();
    await expect(crew.resetMemories("all")).resolves.toBeUndefined();
    await expect(crew.resetMemories("short")).rejects.toThrow(CrewMemoryError);
    await expect(crew.resetMemories("long")).rejects.toThrow("Long-term memory is not enabled on crew 'crew'");
    await expect(crew.resetMemories("nonsense" as "all")).rejects.toThrow("Invalid memory kind 'nonsense'");
  });
});
