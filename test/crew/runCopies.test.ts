import { describe, expect, it, vi } from "vitest";
import { Agent, type AgentOptions } from "../../src/agent/index.js";
import type { ExecutorResult } from "../../src/agent/AgentExecutor.js";
import { Crew } from "../../src/crew/index.js";
import { InMemoryTaskOutputStore } from "../../src/storage/index.js";
import { ConditionalTask, Task, type TaskOptions } from "../../src/task/index.js";
import { FakeLLM } from "../../src/testing/index.js";
import { final } from "./helpers.js";

/** An agent subclass with private state a shallow copy would not have. */
class CountingAgent extends Agent {
  #executions = 0;
  constructor(options: AgentOptions) {
    super(options);
  }
  override executeTaskDetailed(...args: Parameters<Agent["executeTaskDetailed"]>): Promise<ExecutorResult> {
    this.#executions++;
    return super.executeTaskDetailed(...args);
  }
  get executions(): number {
    return this.#executions;
  }
}

/** A task subclass with private state a shallow copy would not have. */
class SignedTask extends Task {
  readonly #signature: string;
  constructor(options: TaskOptions) {
    super(options);
    this.#signature = "-- signed";
  }
  override prompt(): string {
    return `${super.prompt()}\n${this.#signature}`;
  }
}

const store = () => new InMemoryTaskOutputStore();

describe("the copies of agents and tasks a kickoff works on", () => {
  it("copy the user's subclasses with private fields through their constructors, so they run", async () => {
    const llm = new FakeLLM((messages) => final(messages.some((m) => m.content.includes("-- signed")) ? "signed" : "unsigned"));
    const agent = new CountingAgent({ role: "Writer", goal: "Write", backstory: "Quick", llm });
    const task = new SignedTask({ description: "Write about {topic}", expectedOutput: "a line", agent });
    const crew = new Crew({ agents: [agent], tasks: [task], taskOutputStore: store() });
    const copies = vi.spyOn(CountingAgent.prototype, "copyForRun");
    try {
      const outputs = await Promise.all(["a", "b"].map((topic) => crew.kickoff({ topic })));
      expect(outputs.map((o) => o.raw)).toEqual(["signed", "signed"]);
      // Each run worked on its own copy, of the subclass, with its private state: the original was never executed itself.
      const runAgents = copies.mock.results.map((r) => r.value as CountingAgent);
      expect(runAgents).toHaveLength(2);
      for (const run of runAgents) {
        expect(run).toBeInstanceOf(CountingAgent);
        expect(run.executions).toBe(1);
      }
      expect(agent.executions).toBe(0);
      expect(task.description).toMatch(/^Write about [ab]$/);
    } finally {
      copies.mockRestore();
    }
  });

  it("start with their own usage, tools list and execution record, and give back a whole run's results", async () => {
    const copies = vi.spyOn(Agent.prototype, "copyForRun");
    const taskCopies = vi.spyOn(Task.prototype, "copyForRun");
    try {
      const llm = new FakeLLM(() => final("done"), { usage: { promptTokens: 10, completionTokens: 5 } });
      const agent = new Agent({ role: "{who}", goal: "Write", backstory: "Quick", llm });
      const first = new Task({ description: "Write for {who}", expectedOutput: "a line", agent });
      const second = new ConditionalTask({ description: "Check for {who}", expectedOutput: "a line", agent, condition: () => true });
      const crew = new Crew({ agents: [agent], tasks: [first, second], taskOutputStore: store() });
      await Promise.all(["x", "y", "z"].map((who) => crew.kickoff({ who })));
      const runAgents = copies.mock.results.map((r) => r.value as Agent);
      const runTasks = taskCopies.mock.results.map((r) => r.value as Task);
      expect(runAgents).toHaveLength(3);
      expect(runTasks).toHaveLength(6);
      for (const run of runAgents) {
        expect(run).toBeInstanceOf(Agent);
        expect(run.id).toBe(agent.id);
        expect(run.tools).not.toBe(agent.tools);
        expect(run.usageMetrics).not.toBe(agent.usageMetrics);
        expect(run.usageMetrics.successfulRequests).toBe(2);
        expect(run.toolsCache).toBeUndefined();
      }
      expect(new Set(runAgents.map((a) => a.role))).toEqual(new Set(["x", "y", "z"]));
      expect(runTasks.filter((t) => t instanceof ConditionalTask)).toHaveLength(3);
      for (const run of runTasks) expect(run.agent).not.toBe(agent);
      // Each run's agent (its role filled in per run) is among those that worked on the originals.
      expect(first.processedByAgents).toEqual(new Set(["x", "y", "z"]));
      expect(second.processedByAgents).toEqual(new Set(["x", "y", "z"]));
      // The originals: every run's tokens, one run's texts, as written in their options.
      expect(agent.usageMetrics.successfulRequests).toBe(6);
      expect(agent.usageMetrics.totalTokens).toBe(90);
      expect(["x", "y", "z"]).toContain(agent.role);
      expect(first.options.description).toBe("Write for {who}");
      expect(first.output?.raw).toBe("done");
      expect(second.retryCount).toBe(0);
      expect(agent.tools).toEqual([]);
    } finally {
      copies.mockRestore();
      taskCopies.mockRestore();
    }
  });

  it("copy an agent listed twice once, and count its tokens once", async () => {
    const llm = new FakeLLM(() => final("done"), { usage: { promptTokens: 3, completionTokens: 2 } });
    const agent = new Agent({ role: "Writer", goal: "Write for {who}", backstory: "b", llm });
    const crew = new Crew({ agents: [agent, agent], tasks: [new Task({ description: "Write for {who}", expectedOutput: "text", agent })], taskOutputStore: store() });
    const copies = vi.spyOn(Agent.prototype, "copyForRun");
    try {
      const output = await crew.kickoff({ who: "kids" });
      expect(copies).toHaveBeenCalledTimes(1);
      expect(output.tokenUsage.totalTokens).toBe(5);
      expect(agent.usageMetrics.totalTokens).toBe(5);
      expect(agent.goal).toBe("Write for kids");
    } finally {
      copies.mockRestore();
    }
  });
});
