import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/Agent.js";
import { appendPlan, applyPlans, planTasks, PlanningError, PLANNER_AGENT } from "../../src/crew/planning.js";
import { Task } from "../../src/task/Task.js";
import { FakeLLM } from "../../src/testing/index.js";
import { tool } from "../../src/tools/tool.js";

const search = tool({ name: "web_search", description: "Searches the web", schema: z.object({ query: z.string() }), execute: async () => "results" });
const worker = new FakeLLM([]);
const researcher = new Agent({ role: "Researcher", goal: "Find facts about {topic}", backstory: "Curious.", llm: worker, tools: [search] });
const writer = new Agent({ role: "Writer", goal: "Write clearly", backstory: "Precise.", llm: worker });

const makeTasks = () => [
  new Task({ description: "Research the latest AI news", expectedOutput: "Ten bullet points", agent: researcher }),
  new Task({ description: "Write a blog post from the research", expectedOutput: "A four-paragraph post", agent: writer }),
];

const plansJson = (...plans: { task: string; plan: string; task_number?: number }[]) => JSON.stringify({ list_of_plans_per_task: plans });

describe("planTasks", () => {
  it("asks the planner about every task and returns one plan per task id", async () => {
    const tasks = makeTasks();
    const llm = new FakeLLM([plansJson({ task: "Research", plan: "1. Search the web. 2. Keep ten facts." }, { task: "Write", plan: "1. Outline. 2. Draft." })]);
    const warnings: string[] = [];
    const { plans, usage } = await planTasks(tasks, [researcher, writer], { llm, warn: (m) => warnings.push(m) });

    expect(plans).toEqual(
      new Map([
        [tasks[0]!.id, "1. Search the web. 2. Keep ten facts."],
        [tasks[1]!.id, "1. Outline. 2. Draft."],
      ]),
    );
    expect(warnings).toEqual([]);
    expect(usage.successfulRequests).toBe(1);
    expect(llm.calls).toHaveLength(1);
    const [system, user] = llm.calls[0]!.messages;
    expect(system!.content).toContain(PLANNER_AGENT.role);
    const prompt = user!.content;
    for (const text of ["Task number 1", "Research the latest AI news", "Ten bullet points", "Researcher", "Find facts about {topic}", "[web_search]"]) {
      expect(prompt).toContain(text);
    }
    expect(prompt).toContain("Task number 2");
    expect(prompt).toContain("the agent has no tools");
    expect(prompt).toContain("list_of_plans_per_task");
  });

  it("matches plans by task_number when the planner gives one", async () => {
    const tasks = makeTasks();
    const llm = new FakeLLM([plansJson({ task_number: 2, task: "Write", plan: "Plan B" }, { task_number: 1, task: "Research", plan: "Plan A" })]);
    const { plans } = await planTasks(tasks, [], { llm, warn: () => undefined });
    expect(plans.get(tasks[0]!.id)).toBe("Plan A");
    expect(plans.get(tasks[1]!.id)).toBe("Plan B");
  });

  it("warns, never silently, when the planner gives fewer plans than tasks, duplicates or extras", async () => {
    const tasks = makeTasks();
    const llm = new FakeLLM([
      plansJson({ task_number: 1, task: "Research", plan: "First" }, { task_number: 1, task: "Research", plan: "Again" }, { task_number: 7, task: "?", plan: "Extra" }),
    ]);
    const warnings: string[] = [];
    const { plans } = await planTasks(tasks, [], { llm, warn: (m) => warnings.push(m) });
    expect([...plans.values()]).toEqual(["First"]);
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toMatch(/more than one plan for task 1/);
    expect(warnings[1]).toMatch(/task 7.*2 task/);
    expect(warnings[2]).toMatch(/no plan for task 2 \("Write a blog post from the research"\); it runs without one/);
  });

  it("uses process warnings by default", async () => {
    const tasks = makeTasks();
    const llm = new FakeLLM([plansJson({ task: "Research", plan: "Only one" })]);
    const emitWarning = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
    try {
      await planTasks(tasks, [], { llm });
      expect(emitWarning).toHaveBeenCalledWith(expect.stringMatching(/no plan for task 2/), { code: "CREWTS_PLANNING" });
    } finally {
      emitWarning.mockRestore();
    }
  });

  it("reads plans wrapped in prose or fences, and asks the model to fix broken JSON", async () => {
    const tasks = makeTasks().slice(0, 1);
    const fenced = new FakeLLM([`Here you go:\n\`\`\`json\n${plansJson({ task: "Research", plan: "Fenced" })}\n\`\`\``]);
    expect([...(await planTasks(tasks, [], { llm: fenced })).plans.values()]).toEqual(["Fenced"]);

    const fixed = new FakeLLM(["I would search first, then summarize.", plansJson({ task: "Research", plan: "Repaired" })]);
    const result = await planTasks(tasks, [], { llm: fixed });
    expect([...result.plans.values()]).toEqual(["Repaired"]);
    expect(result.usage.successfulRequests).toBe(2);
  });

  it("fails with a PlanningError when no plans can be read", async () => {
    const llm = new FakeLLM(["no json", "still none", "nope", "never"]);
    const error = await planTasks(makeTasks(), [], { llm }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlanningError);
    expect((error as Error).message).toMatch(/planning model.*planningLLM/);
  });

  it("does not call the model when there is nothing to plan", async () => {
    const llm = new FakeLLM([]);
    expect((await planTasks([], [], { llm })).plans.size).toBe(0);
    expect(llm.calls).toHaveLength(0);
  });
});

describe("appendPlan / applyPlans", () => {
  it("appends each plan to its task's description, which the agent then reads", async () => {
    const tasks = makeTasks();
    applyPlans(tasks, new Map([[tasks[0]!.id, "1. Search. 2. Summarize."]]));
    expect(tasks[0]!.description).toMatch(/^Research the latest AI news\n\n.*\n1\. Search\. 2\. Summarize\.$/);
    expect(tasks[1]!.description).toBe("Write a blog post from the research");

    const llm = new FakeLLM(["Thought: done\nFinal Answer: ten facts"]);
    const agent = new Agent({ role: "Researcher", goal: "g", backstory: "b", llm });
    await tasks[0]!.executeSync({ agent });
    expect(llm.calls[0]!.messages.at(-1)!.content).toContain("1. Search. 2. Summarize.");
  });

  it("ignores an empty plan", () => {
    const task = { description: "Do it" };
    appendPlan(task, "   ");
    expect(task.description).toBe("Do it");
  });
});
