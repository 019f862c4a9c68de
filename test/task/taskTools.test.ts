import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { Crew, Process } from "../../src/crew/index.js";
import { Task } from "../../src/task/index.js";
import { FakeLLM } from "../../src/testing/index.js";
import { type BaseTool, tool } from "../../src/tools/index.js";
import { final } from "./helpers.js";

const search = tool({ name: "search", description: "Searches the web", schema: z.object({ q: z.string() }), execute: () => "found" });
const calculator = tool({ name: "calculator", description: "Adds numbers", schema: z.object({ a: z.number() }), execute: () => "2" });

function agentWith(role: string, responses: string[], tools: BaseTool[] = [search]): { agent: Agent; llm: FakeLLM } {
  const llm = new FakeLLM(responses);
  return { agent: new Agent({ role, goal: "g", backstory: "b", llm, tools }), llm };
}

const systemOf = (llm: FakeLLM, call = 0): string => llm.calls[call]?.messages.map((m) => m.content).join("\n") ?? "";

describe("task.tools (as CrewAI's Task.check_tools)", () => {
  it("reports the agent's tools when the task has none of its own", () => {
    const { agent } = agentWith("Researcher", []);
    const task = new Task({ description: "d", expectedOutput: "x", agent });
    expect(task.tools).toEqual([search]);
    expect(task.ownTools).toEqual([]);
  });

  it("keeps its own tools when it has some", () => {
    const { agent } = agentWith("Researcher", []);
    const task = new Task({ description: "d", expectedOutput: "x", agent, tools: [calculator] });
    expect(task.tools).toEqual([calculator]);
  });

  it("reports the tools of an agent assigned after construction, and tools assigned later as its own", () => {
    const task = new Task({ description: "d", expectedOutput: "x" });
    expect(task.tools).toEqual([]);
    task.agent = agentWith("Researcher", []).agent;
    expect(task.tools).toEqual([search]);
    task.tools = [calculator];
    expect(task.tools).toEqual([calculator]);
    expect(task.ownTools).toEqual([calculator]);
  });

  it("keeps the difference in copies: a copy reports the tools of its mapped agent", () => {
    const { agent } = agentWith("Researcher", []);
    const other = agentWith("Other", [], [calculator]).agent;
    const copied = new Task({ description: "d", expectedOutput: "x", agent }).copy(() => other);
    expect(copied.ownTools).toEqual([]);
    expect(copied.tools).toEqual([calculator]);
    const own = new Task({ description: "d", expectedOutput: "x", agent, tools: [search] }).copy(() => other);
    expect(own.tools).toEqual([search]);
  });
});

describe("tools a crew gives a task's executor", () => {
  it("sequential: the agent's tools for a task without tools, the task's own otherwise", async () => {
    const { agent, llm } = agentWith("Researcher", [final("one"), final("two")]);
    const bare = new Task({ description: "first", expectedOutput: "x", agent });
    const own = new Task({ description: "second", expectedOutput: "x", agent, tools: [calculator] });
    await new Crew({ agents: [agent], tasks: [bare, own] }).kickoff();
    expect(systemOf(llm, 0)).toContain("Tool Name: search");
    expect(systemOf(llm, 1)).toContain("Tool Name: calculator");
    expect(systemOf(llm, 1)).not.toContain("Tool Name: search");
    expect(bare.tools).toEqual([search]);
  });

  it("hierarchical: the manager gets the task's own tools and delegation, never the worker's tools", async () => {
    const { agent } = agentWith("Researcher", []);
    const managerLLM = new FakeLLM([final("done"), final("done too")]);
    const withAgent = new Task({ description: "first", expectedOutput: "x", agent });
    const withOwn = new Task({ description: "second", expectedOutput: "x", tools: [calculator] });
    const crew = new Crew({ agents: [agent], tasks: [withAgent, withOwn], process: Process.hierarchical, managerLLM });
    await crew.kickoff();
    expect(systemOf(managerLLM, 0)).toContain("Tool Name: delegate_work_to_coworker");
    expect(systemOf(managerLLM, 0)).not.toContain("Tool Name: search");
    expect(systemOf(managerLLM, 1)).toContain("Tool Name: calculator");
    expect(systemOf(managerLLM, 1)).not.toContain("Tool Name: search");
    expect(withAgent.tools).toEqual([search]);
  });
});

describe("task.tools when they are the agent's", () => {
  it("cannot be changed through the task, so the agent's tools stay as they are", () => {
    const { agent } = agentWith("Researcher", []);
    const task = new Task({ description: "d", expectedOutput: "x", agent });
    expect(() => task.tools.push(calculator)).toThrow(TypeError);
    expect(agent.tools).toEqual([search]);
    const bare = new Task({ description: "d", expectedOutput: "x", agent: agentWith("Plain", [], []).agent });
    bare.tools.push(calculator);
    expect(bare.ownTools).toEqual([calculator]);
  });
});
