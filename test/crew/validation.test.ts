import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { Crew, CrewValidationError, Process } from "../../src/crew/index.js";
import { ConditionalTask } from "../../src/task/index.js";
import { FakeLLM } from "../../src/testing/index.js";
import { tool } from "../../src/tools/index.js";
import { fakeAgent, final, task } from "./helpers.js";

const { agent } = fakeAgent("Researcher", [final("x")]);
const conditional = (description: string, options: { asyncExecution?: boolean } = {}) =>
  new ConditionalTask({ description, expectedOutput: "x", agent, condition: () => true, ...options });

function errorOf(make: () => unknown): CrewValidationError {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(CrewValidationError);
    return error as CrewValidationError;
  }
  throw new Error("expected the crew to be rejected");
}

describe("Crew validation (CrewAI's messages)", () => {
  it("needs at least one non-conditional task", () => {
    const only = errorOf(() => new Crew({ agents: [agent], tasks: [conditional("a")] }));
    expect(only.message).toBe("Crew must include at least one non-conditional task");
    expect(only.code).toBe("only_conditional_tasks");
    expect(errorOf(() => new Crew({ agents: [agent], tasks: [] })).message).toBe("Crew must include at least one non-conditional task");
  });

  it("rejects a conditional first task", () => {
    expect(errorOf(() => new Crew({ agents: [agent], tasks: [conditional("a"), task("b", agent)] })).message).toBe(
      "The first task cannot be a ConditionalTask.",
    );
  });

  it("rejects an async conditional task", () => {
    expect(errorOf(() => new Crew({ agents: [agent], tasks: [task("a", agent), conditional("check it", { asyncExecution: true }), task("c", agent)] })).message).toBe(
      "Conditional Task: check it, cannot be executed asynchronously.",
    );
  });

  it("allows one async task at the end, not two", () => {
    expect(() => new Crew({ agents: [agent], tasks: [task("a", agent), task("b", agent, { asyncExecution: true })] })).not.toThrow();
    const tasks = [task("a", agent), task("b", agent, { asyncExecution: true }), task("c", agent, { asyncExecution: true })];
    expect(errorOf(() => new Crew({ agents: [agent], tasks })).message).toBe("The crew must end with at most one asynchronous task.");
  });

  it("rejects an async task whose context holds the async task running right before it", () => {
    const first = task("first", agent, { asyncExecution: true });
    const second = task("second", agent, { asyncExecution: true, context: [first] });
    expect(errorOf(() => new Crew({ agents: [agent], tasks: [first, second, task("end", agent)] })).message).toBe(
      "Task 'second' is asynchronous and cannot include other sequential asynchronous tasks in its context.",
    );
    // A sync task in between means the first one has finished: allowed.
    const a = task("a", agent, { asyncExecution: true });
    const b = task("b", agent, { asyncExecution: true, context: [a] });
    expect(() => new Crew({ agents: [agent], tasks: [a, task("sync", agent), b, task("end", agent)] })).not.toThrow();
  });

  it("rejects context on a future task", () => {
    const later = task("write the report", agent);
    const early = task("outline", agent, { context: [later] });
    expect(errorOf(() => new Crew({ agents: [agent], tasks: [early, later] })).message).toBe(
      "Task 'outline' has a context dependency on a future task 'write the report', which is not allowed.",
    );
  });

  it("needs an agent on every task of a sequential crew", () => {
    expect(errorOf(() => new Crew({ agents: [agent], tasks: [task("orphan task", undefined)] })).message).toBe(
      "Sequential process error: Agent is missing in the task with the following description: orphan task",
    );
    // A hierarchical crew assigns the manager instead.
    expect(() => new Crew({ agents: [agent], tasks: [task("orphan task", undefined)], process: Process.hierarchical, managerLLM: new FakeLLM([]) })).not.toThrow();
  });

  it("needs managerLLM or managerAgent in a hierarchical crew", () => {
    const error = errorOf(() => new Crew({ agents: [agent], tasks: [task("a", agent)], process: "hierarchical" }));
    expect(error.message).toBe("Attribute `managerLLM` or `managerAgent` is required when using hierarchical process.");
  });

  it("rejects a manager agent with tools or inside agents", () => {
    const echo = tool({ name: "echo", description: "Echoes", schema: z.object({ text: z.string() }), execute: ({ text }) => text });
    const boss = new Agent({ role: "Boss", goal: "Lead", backstory: "Leads.", llm: new FakeLLM([]), tools: [echo] });
    expect(errorOf(() => new Crew({ agents: [agent], tasks: [task("a", agent)], process: "hierarchical", managerAgent: boss })).message).toBe(
      "Manager agent should not have tools",
    );
    const plain = new Agent({ role: "Boss", goal: "Lead", backstory: "Leads.", llm: new FakeLLM([]) });
    expect(errorOf(() => new Crew({ agents: [agent, plain], tasks: [task("a", agent)], process: "hierarchical", managerAgent: plain })).message).toBe(
      "Manager agent should not be included in agents list.",
    );
  });

  it("rejects malformed options with the field named", () => {
    const bad = { agents: [agent], tasks: [task("a", agent)], maxRpm: 0 };
    expect(errorOf(() => new Crew(bad)).message).toMatch(/^Invalid Crew options: maxRpm/);
    const typo = { agents: [agent], tasks: [task("a", agent)], proces: "sequential" } as unknown as ConstructorParameters<typeof Crew>[0];
    expect(errorOf(() => new Crew(typo)).message).toContain("proces");
    const notATask = { agents: [agent], tasks: [{ description: "x" }] } as unknown as ConstructorParameters<typeof Crew>[0];
    expect(errorOf(() => new Crew(notATask)).message).toContain("tasks.0");
  });
});
