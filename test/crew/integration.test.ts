import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { AgentStep } from "../../src/agent/index.js";
import { Crew } from "../../src/crew/index.js";
import { eventBus } from "../../src/events/index.js";
import { InMemoryTaskOutputStore } from "../../src/storage/index.js";
import { FakeLLM } from "../../src/testing/index.js";
import { tool } from "../../src/tools/index.js";
import { action, allText, fakeAgent, final, task, userText } from "./helpers.js";

// How the parts the lead wired into Crew work together: planning, trained data, the step callback,
// kickoffForEach copies, task tools and token usage. Replay is in replay.test.ts.

afterEach(() => {
  eventBus.clear();
  vi.restoreAllMocks();
});

const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };

describe("planning", () => {
  const plans = JSON.stringify({
    list_of_plans_per_task: [
      { task_number: 1, task: "Research", plan: "Step 1: search for {topic} sources." },
      { task_number: 2, task: "Write", plan: "Step 1: outline. Step 2: draft." },
    ],
  });

  it("appends each plan to its task's prompt once per kickoff and counts the planner's tokens", async () => {
    const planner = new FakeLLM(() => plans, { usage: { promptTokens: 100, completionTokens: 40, totalTokens: 140 } });
    const a = fakeAgent("Researcher", () => final("facts"), { usage });
    const b = fakeAgent("Writer", () => final("post"), { usage });
    const crew = new Crew({
      agents: [a.agent, b.agent],
      tasks: [task("Research {topic}", a.agent), task("Write about {topic}", b.agent)],
      planning: true,
      planningLLM: planner,
      taskOutputStore: new InMemoryTaskOutputStore(),
    });
    const output = await crew.kickoff({ topic: "bees" });

    expect(userText(planner, 0)).toContain("Research bees");
    expect(userText(a.llm, 0)).toContain("Research bees");
    expect(userText(a.llm, 0)).toContain("Step 1: search for {topic} sources.");
    expect(userText(a.llm, 0)).not.toContain("Step 2: draft");
    expect(userText(b.llm, 0)).toContain("Step 1: outline. Step 2: draft.");
    expect(output.tokenUsage).toEqual({ promptTokens: 120, completionTokens: 50, totalTokens: 170, successfulRequests: 3 });

    // A second kickoff plans afresh from the original descriptions: one plan per prompt, never two.
    await crew.kickoff({ topic: "ants" });
    const second = userText(a.llm, 1);
    expect(second).toContain("Research ants");
    expect(second.split("Step 1: search").length - 1).toBe(1);
    expect(crew.usageMetrics.totalTokens).toBe(170);
  });

  it("fails the kickoff, with crew_kickoff_failed, when the planner's answer is unreadable", async () => {
    const failed = vi.fn();
    eventBus.on("crew_kickoff_failed", failed);
    const a = fakeAgent("Researcher", []);
    const crew = new Crew({ agents: [a.agent], tasks: [task("Research", a.agent)], planning: true, planningLLM: new FakeLLM(() => "no plan at all") });
    await expect(crew.kickoff()).rejects.toThrow(/planner's answer could not be read/);
    expect(failed).toHaveBeenCalledOnce();
    expect(a.llm.calls).toHaveLength(0);
  });
});

describe("trained agent data", () => {
  const trained = {
    Researcher: { suggestions: ["Cite two sources for every claim", "Keep it under 100 words"], quality: 8, finalSummary: "Cite and be brief." },
  };

  it("puts a trainedAgentsFile's instructions into the system prompt of the agent with that role only", async () => {
    const dir = await mkdtemp(join(tmpdir(), "crewts-trained-"));
    try {
      const file = join(dir, "trained.json");
      await writeFile(file, JSON.stringify(trained));
      const a = fakeAgent("researcher", [final("facts")]);
      const b = fakeAgent("Writer", [final("post")]);
      await new Crew({ agents: [a.agent, b.agent], tasks: [task("Research", a.agent), task("Write", b.agent)], trainedAgentsFile: file }).kickoff();
      const system = a.llm.calls[0]!.messages[0]!;
      expect(system.role).toBe("system");
      expect(system.content).toContain("Cite two sources for every claim");
      expect(system.content).toContain("Keep it under 100 words");
      expect(allText(b.llm)).not.toContain("Cite two sources");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("reads ./trained_agents_data.json by default; a broken default file only warns, a broken given file fails", async () => {
    const dir = await mkdtemp(join(tmpdir(), "crewts-trained-cwd-"));
    const cwd = process.cwd();
    try {
      process.chdir(dir);
      await writeFile("trained_agents_data.json", JSON.stringify(trained));
      const a = fakeAgent("Researcher", () => final("facts"));
      const crew = new Crew({ agents: [a.agent], tasks: [task("Research", a.agent)], taskOutputStore: new InMemoryTaskOutputStore() });
      await crew.kickoff();
      expect(allText(a.llm, 0)).toContain("Cite two sources for every claim");

      await writeFile("trained_agents_data.json", "not json");
      const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
      // A crew reads the file once; a new crew sees the broken one.
      const again = new Crew({ agents: [a.agent], tasks: [task("Research", a.agent)], taskOutputStore: new InMemoryTaskOutputStore() });
      await expect(again.kickoff()).resolves.toBeDefined();
      expect(warn.mock.calls.some(([, options]) => options?.code === "CREWTS_TRAINED_DATA")).toBe(true);
      const strict = new Crew({ agents: [a.agent], tasks: [task("Research", a.agent)], trainedAgentsFile: "trained_agents_data.json" });
      await expect(strict.kickoff()).rejects.toThrow("is not valid JSON");
    } finally {
      process.chdir(cwd);
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("step callback", () => {
  it("reaches every agent without its own, async tasks too, and is taken back after the kickoff, even a failed one", async () => {
    const steps: AgentStep[] = [];
    const stepCallback = (step: AgentStep) => void steps.push(step);
    const search = tool({ name: "search", description: "Searches", schema: z.object({ q: z.string() }), execute: () => "found" });
    const a = fakeAgent("Researcher", [action("search", { q: "x" }), final("a")], {}, { tools: [search] });
    const b = fakeAgent("Analyst", [final("b")]);
    const own: AgentStep[] = [];
    const c = fakeAgent("Writer", [final("c")], {}, { stepCallback: (step) => void own.push(step) });
    const crew = new Crew({
      agents: [a.agent, b.agent, c.agent],
      tasks: [task("a", a.agent, { asyncExecution: true }), task("b", b.agent, { asyncExecution: true }), task("c", c.agent)],
      stepCallback,
      taskOutputStore: new InMemoryTaskOutputStore(),
    });
    await crew.kickoff();
    expect(steps.map((s) => [s.type, s.output ?? s.tool])).toEqual(expect.arrayContaining([["action", "search"], ["finish", "a"], ["finish", "b"]]));
    expect(steps).toHaveLength(3);
    expect(own.map((s) => s.output)).toEqual(["c"]);
    for (const agent of [a.agent, b.agent, c.agent]) expect(agent.crewStepCallback).toBeUndefined();

    const failing = fakeAgent("Broken", () => new Error("down"), {}, { maxRetryLimit: 0 });
    const failingCrew = new Crew({ agents: [failing.agent], tasks: [task("x", failing.agent)], stepCallback, taskOutputStore: new InMemoryTaskOutputStore() });
    await expect(failingCrew.kickoff()).rejects.toThrow("down");
    expect(failing.agent.crewStepCallback).toBeUndefined();
  });
});

describe("kickoffForEach", () => {
  it("gives each copy its own inputs, placeholders in agent roles included, and leaves the original as written", async () => {
    const llm = new FakeLLM((messages) => final(`I am ${/You are ([^.]*)\./.exec(messages[0]!.content)?.[1] ?? "?"}`), { usage });
    const a = fakeAgent("{topic} Researcher", [], {}, { llm, goal: "Know everything about {topic}" });
    const crew = new Crew({ agents: [a.agent], tasks: [task("Research {topic}", a.agent)] });
    await crew.kickoff({ topic: "fish" });
    expect(a.agent.role).toBe("fish Researcher");

    const outputs = await crew.kickoffForEach([{ topic: "cats" }, { topic: "dogs" }, { topic: "birds" }], { concurrency: 3 });
    expect(outputs.map((o) => o.raw)).toEqual(["I am cats Researcher", "I am dogs Researcher", "I am birds Researcher"]);
    expect(outputs.map((o) => o.tasksOutput[0]!.agent)).toEqual(["cats Researcher", "dogs Researcher", "birds Researcher"]);
    expect(outputs.map((o) => o.tasksOutput[0]!.description)).toEqual(["Research cats", "Research dogs", "Research birds"]);
    const goals = llm.calls.slice(1).map((call) => /Your personal goal is: (.*)/.exec(call.messages[0]!.content)?.[1]);
    expect(goals.sort()).toEqual(["Know everything about birds", "Know everything about cats", "Know everything about dogs"]);
    // The crew's own agent and task are untouched by the copies.
    expect(a.agent.role).toBe("fish Researcher");
    expect(crew.tasks[0]!.description).toBe("Research fish");
    expect(crew.usageMetrics).toEqual({ promptTokens: 30, completionTokens: 15, totalTokens: 45, successfulRequests: 3 });
  });
});

describe("tools of a task", () => {
  const search = tool({ name: "web_search", description: "Searches the web", schema: z.object({ q: z.string() }), execute: () => "found" });
  const calculator = tool({ name: "calculator", description: "Computes", schema: z.object({ expression: z.string() }), execute: () => "4" });

  it("replace the agent's tools; without them the agent's own are used", async () => {
    const a = fakeAgent("Researcher", [final("one"), final("two")], {}, { tools: [search] });
    await new Crew({
      agents: [a.agent],
      tasks: [task("With task tools", a.agent, { tools: [calculator] }), task("Without", a.agent)],
      taskOutputStore: new InMemoryTaskOutputStore(),
    }).kickoff();
    const first = a.llm.calls[0]!.messages[0]!.content;
    expect(first).toContain("Tool Name: calculator");
    expect(first).not.toContain("web_search");
    const second = a.llm.calls[1]!.messages[0]!.content;
    expect(second).toContain("Tool Name: web_search");
    expect(second).not.toContain("calculator");
  });

  it("are joined by the delegation tools for an agent that may delegate", async () => {
    const a = fakeAgent("Researcher", [final("one")], {}, { tools: [search], allowDelegation: true });
    const b = fakeAgent("Writer", []);
    await new Crew({ agents: [a.agent, b.agent], tasks: [task("Research", a.agent, { tools: [calculator] })], taskOutputStore: new InMemoryTaskOutputStore() }).kickoff();
    const system = a.llm.calls[0]!.messages[0]!.content;
    expect(system).toContain("[calculator, delegate_work_to_coworker, ask_question_to_coworker]");
  });

  it("are offered as native tools when the model calls functions", async () => {
    const a = fakeAgent("Researcher", [{ toolCalls: [{ name: "calculator", arguments: { expression: "2+2" } }] }, "It is 4"], { functionCalling: true }, { tools: [search] });
    const output = await new Crew({ agents: [a.agent], tasks: [task("Add", a.agent, { tools: [calculator] })], taskOutputStore: new InMemoryTaskOutputStore() }).kickoff();
    expect(a.llm.calls[0]!.options.tools?.map((t) => t.name)).toEqual(["calculator"]);
    expect(output.raw).toBe("It is 4");
  });
});

describe("token usage", () => {
  it("sums exactly over tool steps, guardrail retries, output conversion and every agent", async () => {
    const search = tool({ name: "search", description: "Searches", schema: z.object({ q: z.string() }), execute: () => "found" });
    const researcher = fakeAgent("Researcher", [action("search", { q: "x" }), final("facts")], { usage }, { tools: [search] });
    // The writer answers in prose (converted into the schema by one more call), is sent back once by
    // the guardrail, then answers in JSON: 3 calls.
    const writer = fakeAgent("Writer", [final("Title: Cats"), '{"title": "Cats"}', final('{"title": "Cats are great pets, a long title"}')], {
      usage: { promptTokens: 7, completionTokens: 3, totalTokens: 10 },
    });
    const crew = new Crew({
      agents: [researcher.agent, writer.agent],
      tasks: [
        task("Research", researcher.agent),
        task("Write", writer.agent, {
          outputSchema: z.object({ title: z.string() }),
          guardrail: (output) => ((output.parsed as { title: string }).title.length > 10 ? [true, output.raw] : [false, "Longer, please"]),
        }),
      ],
      taskOutputStore: new InMemoryTaskOutputStore(),
    });
    const output = await crew.kickoff();
    expect(writer.llm.calls).toHaveLength(3);
    expect(output.tokenUsage).toEqual({ promptTokens: 2 * 10 + 3 * 7, completionTokens: 2 * 5 + 3 * 3, totalTokens: 2 * 15 + 3 * 10, successfulRequests: 5 });
    expect(output.parsed).toEqual({ title: "Cats are great pets, a long title" });
    expect(crew.usageMetrics).toEqual(output.tokenUsage);
    expect(crew.tasks[1]!.retryCount).toBe(1);
  });

  it("counts the manager and the coworkers of a hierarchical crew, and the usage of a failed kickoff", async () => {
    const writer = fakeAgent("Writer", [final("poem")], { usage });
    const managerLLM = new FakeLLM([action("Delegate work to coworker", { task: "Write a poem", context: "about the sea", coworker: "writer" }), final("done")], { usage });
    const crew = new Crew({ agents: [writer.agent], tasks: [task("Get a poem", undefined)], process: "hierarchical", managerLLM, taskOutputStore: new InMemoryTaskOutputStore() });
    const output = await crew.kickoff();
    expect(output.tokenUsage).toEqual({ promptTokens: 30, completionTokens: 15, totalTokens: 45, successfulRequests: 3 });

    const broken = fakeAgent("Broken", [final("first"), new Error("down")], { usage }, { maxRetryLimit: 0 });
    const failing = new Crew({ agents: [broken.agent], tasks: [task("a", broken.agent), task("b", broken.agent)], taskOutputStore: new InMemoryTaskOutputStore() });
    await expect(failing.kickoff()).rejects.toThrow("down");
    expect(failing.usageMetrics).toEqual({ ...usage, successfulRequests: 1 });
  });
});
