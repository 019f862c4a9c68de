// A CrewAI user's tasks, crew options and configuration mistakes, ported to crewts: only the public
// entry points are imported, as a user would. The crews themselves are in acceptance.test.ts.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  Agent,
  ConditionalTask,
  Crew,
  CrewOutput,
  CrewReplayError,
  CrewValidationError,
  eventBus,
  GuardrailError,
  Process,
  Task,
  TaskOutput,
  tool,
  type CrewOptions,
  type GuardrailResult,
  type TaskOptions,
  type UsageMetrics,
} from "../../src/index.js";
import { FakeLLM } from "../../src/testing/index.js";

afterEach(() => eventBus.clear());

const final = (text: string): string => `Thought: I now can give a great answer\nFinal Answer: ${text}`;
const userOf = (llm: FakeLLM, call: number): string =>
  (llm.calls[call]?.messages ?? []).filter((m) => m.role === "user").map((m) => m.content).join("\n");

describe("the names of API.md's Task and Crew sections", () => {
  it("are exported with the documented shapes", async () => {
    for (const value of [Task, ConditionalTask, TaskOutput, Crew, CrewOutput]) expect(value).toBeTypeOf("function");
    expect(Process).toEqual({ sequential: "sequential", hierarchical: "hierarchical" });
    const tuple: GuardrailResult = [true, "ok"];
    const object: GuardrailResult = { success: false, error: "why" };
    const usage: UsageMetrics = { totalTokens: 3, promptTokens: 2, completionTokens: 1, successfulRequests: 1 };
    const agent = new Agent({ role: "Writer", goal: "g", backstory: "b", llm: new FakeLLM([final("done")]) });
    const taskOptions: TaskOptions = { description: "Write", expectedOutput: "Text", agent, guardrail: () => tuple, guardrails: [() => object], guardrailMaxRetries: 0 };
    const options: CrewOptions = { agents: [agent], tasks: [new Task({ ...taskOptions, guardrails: [] })], process: "sequential", cache: true };
    const crew = new Crew(options);
    const output = await crew.kickoff();
    expect(Object.keys(output.tokenUsage).sort()).toEqual(Object.keys(usage).sort());
    expect(crew.usageMetrics).toEqual(output.tokenUsage);
    for (const method of ["kickoff", "kickoffForEach", "replay", "train", "test", "copy", "resetMemories"]) expect(Reflect.get(crew, method)).toBeTypeOf("function");
    const task = crew.tasks[0]!;
    for (const method of ["executeSync", "executeAsync"]) expect(Reflect.get(task, method)).toBeTypeOf("function");
    expect(task.output).toBeInstanceOf(TaskOutput);
    expect(Object.keys(task.output!.toJSON())).toEqual(
      expect.arrayContaining(["description", "name", "expectedOutput", "summary", "raw", "parsed", "jsonDict", "agent", "outputFormat"]),
    );
    expect(Object.keys(output.toJSON()).sort()).toEqual(["jsonDict", "parsed", "raw", "tasksOutput", "tokenUsage"]);
  });
});

describe("configurations CrewAI rejects", () => {
  const agent = new Agent({ role: "Writer", goal: "g", backstory: "b", llm: new FakeLLM([]) });
  const plain = (description = "Write") => new Task({ description, expectedOutput: "Text", agent });
  const conditional = () => new ConditionalTask({ description: "Maybe", expectedOutput: "Text", agent, condition: () => true });
  const messageOf = (build: () => unknown): string => {
    try {
      build();
    } catch (error) {
      expect(error).toBeInstanceOf(CrewValidationError);
      return (error as Error).message;
    }
    throw new Error("expected the crew to be rejected");
  };

  it("throws at construction with CrewAI's messages", () => {
    expect(messageOf(() => new Crew({ agents: [agent], tasks: [conditional()] }))).toBe("Crew must include at least one non-conditional task");
    expect(messageOf(() => new Crew({ agents: [agent], tasks: [conditional(), plain()] }))).toBe("The first task cannot be a ConditionalTask.");
    expect(messageOf(() => new Crew({ agents: [agent], tasks: [new Task({ description: "Orphan", expectedOutput: "x" })] }))).toBe(
      "Sequential process error: Agent is missing in the task with the following description: Orphan",
    );
    expect(messageOf(() => new Crew({ agents: [agent], tasks: [plain()], process: Process.hierarchical }))).toMatch(/is required when using hierarchical process/);
    const asyncTask = () => new Task({ description: "Async", expectedOutput: "x", agent, asyncExecution: true });
    expect(messageOf(() => new Crew({ agents: [agent], tasks: [asyncTask(), asyncTask()] }))).toBe("The crew must end with at most one asynchronous task.");
    const later = plain("Later");
    expect(messageOf(() => new Crew({ agents: [agent], tasks: [plain("Early"), later].map((t, i) => (i === 0 ? new Task({ description: "Early", expectedOutput: "x", agent, context: [later] }) : t)) }))).toBe(
      "Task 'Early' has a context dependency on a future task 'Later', which is not allowed.",
    );
    const manager = new Agent({ role: "Boss", goal: "g", backstory: "b", llm: new FakeLLM([]) });
    expect(messageOf(() => new Crew({ agents: [agent, manager], tasks: [plain()], process: Process.hierarchical, managerAgent: manager }))).toBe(
      "Manager agent should not be included in agents list.",
    );
  });
});

describe("a task on its own", () => {
  it("executes with executeSync and executeAsync, and exposes id, output and retryCount", async () => {
    const llm = new FakeLLM([final("Paris"), final("Berlin")]);
    const agent = new Agent({ role: "Geographer", goal: "Know capitals", backstory: "Well travelled.", llm });
    const task = new Task({ description: "What is the capital of France?", expectedOutput: "One word", agent });
    expect(task.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(task.output).toBeUndefined();
    expect(task.retryCount).toBe(0);
    const output = await task.executeSync({ context: "Europe" });
    expect(output.raw).toBe("Paris");
    expect(output.name).toBe("What is the capital of France?");
    expect(task.output).toBe(output);
    expect(userOf(llm, 0)).toContain("This is the context you're working with:\nEurope");

    const other = new Task({ description: "And of Germany?", expectedOutput: "One word" });
    const pending = other.executeAsync({ agent });
    expect(pending).toBeInstanceOf(Promise);
    expect((await pending).raw).toBe("Berlin");
  });

  it("fails with GuardrailError after guardrailMaxRetries, and accepts { success, result } guardrails that rewrite the output", async () => {
    const agent = new Agent({ role: "Writer", goal: "g", backstory: "b", llm: new FakeLLM([final("bad"), final("bad again"), final("fine")]) });
    const strict = new Task({ description: "Write", expectedOutput: "x", agent, guardrailMaxRetries: 1, guardrail: () => [false, "Not good enough"] });
    const error = await strict.executeSync().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GuardrailError);
    expect((error as Error).message).toMatch(/^Task failed guardrail validation after 1 retries\. Last error: Not good enough/);

    const shouting = new Task({ description: "Write", expectedOutput: "x", agent, guardrail: (o: TaskOutput) => ({ success: true, result: o.raw.toUpperCase() }) });
    expect((await shouting.executeSync()).raw).toBe("FINE");
  });

  it("takes a string guardrail, judged by the agent's LLM", async () => {
    const llm = new FakeLLM([final("Short."), '{"valid": false, "feedback": "Needs two sentences"}', final("One. Two."), '{"valid": true, "feedback": null}']);
    const agent = new Agent({ role: "Writer", goal: "g", backstory: "b", llm });
    const task = new Task({ description: "Write", expectedOutput: "Two sentences", agent, guardrail: "The answer must have two sentences" });
    expect((await task.executeSync()).raw).toBe("One. Two.");
    expect(task.retryCount).toBe(1);
    expect(userOf(llm, 2)).toContain("Needs two sentences");
  });
});

describe("crew options a CrewAI user relies on", () => {
  it("calls the callbacks and hooks, writes the output file and the log, and caches tool results across agents", async () => {
    const dir = await mkdtemp(join(tmpdir(), "crewts-acceptance-"));
    try {
      let searches = 0;
      const search = tool({
        name: "search",
        description: "Searches",
        schema: z.object({ query: z.string() }),
        execute: ({ query }) => `${++searches} result(s) for ${query}`,
      });
      const useSearch = 'Thought: search\nAction: search\nAction Input: {"query": "bees"}';
      const a = new Agent({ role: "Researcher", goal: "g", backstory: "b", llm: new FakeLLM([useSearch, final("bees are busy")]), tools: [search] });
      const b = new Agent({ role: "Writer", goal: "g", backstory: "b", llm: new FakeLLM([useSearch, final("A poem about busy bees")]), tools: [search] });
      const seen: string[] = [];
      const crew = new Crew({
        agents: [a, b],
        tasks: [
          new Task({ description: "Research {topic}", expectedOutput: "Facts", agent: a, callback: (o) => void seen.push(`task callback: ${o.raw}`) }),
          new Task({ description: "Write about {topic}", expectedOutput: "A poem", agent: b, outputFile: join(dir, "out", "{topic}.md") }),
        ],
        stepCallback: (step) => void seen.push(`step: ${step.type}`),
        taskCallback: (o) => void seen.push(`crew task callback: ${o.raw}`),
        beforeKickoff: [(inputs) => ({ ...inputs, topic: String(inputs.topic).toLowerCase() })],
        afterKickoff: [(output) => void seen.push(`after: ${output.raw}`)],
        outputLogFile: join(dir, "crew.log"),
      });
      const result = await crew.kickoff({ topic: "BEES" });

      expect(result.raw).toBe("A poem about busy bees");
      expect(await readFile(join(dir, "out", "bees.md"), "utf8")).toBe("A poem about busy bees");
      expect(seen).toEqual([
        "step: action",
        "step: finish",
        "task callback: bees are busy",
        "crew task callback: bees are busy",
        "step: action",
        "step: finish",
        "crew task callback: A poem about busy bees",
        "after: A poem about busy bees",
      ]);
      // The second agent got the first one's search result from the kickoff's cache.
      expect(searches).toBe(1);
      const log = (await readFile(join(dir, "crew.log"), "utf8")).trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(log.map((entry) => [entry.agent, entry.status, entry.output])).toEqual([
        ["Researcher", "completed", "bees are busy"],
        ["Writer", "completed", "A poem about busy bees"],
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("copies, trains, tests and resets like CrewAI", async () => {
    const dir = await mkdtemp(join(tmpdir(), "crewts-acceptance-train-"));
    try {
      const llm = new FakeLLM((messages) =>
        messages.some((m) => m.content.includes("during training"))
          ? JSON.stringify({ suggestions: ["Always name a source"], quality: 7, finalSummary: "Name sources." })
          : final("An answer"),
      );
      const agent = new Agent({ role: "Researcher", goal: "g", backstory: "b", llm });
      const crew = new Crew({ agents: [agent], tasks: [new Task({ description: "Research {topic}", expectedOutput: "Facts", agent })] });

      const copy = crew.copy();
      expect(copy).not.toBe(crew);
      expect(copy.id).not.toBe(crew.id);
      expect(copy.agents[0]).not.toBe(agent);
      expect(copy.agents[0]!.role).toBe("Researcher");
      expect(copy.tasks[0]!.id).not.toBe(crew.tasks[0]!.id);

      const filename = join(dir, "trained.json");
      await crew.train({ iterations: 1, filename, inputs: { topic: "bees" }, feedback: () => "Name your sources" });
      const trained = JSON.parse(await readFile(filename, "utf8")) as Record<string, { suggestions: string[] }>;
      expect(trained.Researcher!.suggestions).toEqual(["Always name a source"]);
      const trainedCrew = new Crew({ agents: [agent], tasks: [new Task({ description: "Research", expectedOutput: "Facts", agent })], trainedAgentsFile: filename });
      await trainedCrew.kickoff();
      expect(llm.calls.at(-1)!.messages[0]!.content).toContain("Always name a source");

      const printed: string[] = [];
      const scores = await crew.test({ iterations: 1, evalLLM: new FakeLLM(() => '{"quality": 9}'), inputs: { topic: "bees" }, print: (text) => void printed.push(text) });
      expect(scores.averages.overall).toBe(9);
      expect(printed.join("\n")).toContain("Task 1");

      await crew.kickoff({ topic: "ants" });
      await crew.resetMemories("kickoff_outputs");
      await expect(crew.replay(crew.tasks[0]!.id)).rejects.toThrow(CrewReplayError);
      await expect(crew.resetMemories("all")).resolves.toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
