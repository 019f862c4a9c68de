import { afterEach, describe, expect, expectTypeOf, it, vi } from "vitest";
import { z } from "zod";
import { tool } from "../../src/tools/index.js";
import { eventBus, type CrewtsEvent } from "../../src/events/index.js";
import { Task, TaskOutput, TaskValidationError } from "../../src/task/index.js";
import { fakeAgent, final, userText } from "./helpers.js";

afterEach(() => eventBus.clear());

describe("Task execution", () => {
  it("runs the agent, sets output and timing, and emits started/completed with ids", async () => {
    const { agent } = fakeAgent([final("Paris is the capital.")]);
    const task = new Task({ description: "Name the capital of France", expectedOutput: "One sentence", agent, name: "capital" });
    const events: CrewtsEvent[] = [];
    eventBus.on("task_started", (e) => void events.push(e));
    eventBus.on("task_completed", (e) => void events.push(e));

    const output = await task.executeSync({ context: "Earlier: France is in Europe." });

    expect(output).toBeInstanceOf(TaskOutput);
    expect(output.raw).toBe("Paris is the capital.");
    expect(output.agent).toBe("Researcher");
    expect(output.name).toBe("capital");
    expect(output.description).toBe("Name the capital of France");
    expect(output.expectedOutput).toBe("One sentence");
    expect(output.outputFormat).toBe("raw");
    expect(output.toJSON()).toMatchObject({ raw: "Paris is the capital.", agent: "Researcher", outputFormat: "raw" });
    expect(task.output).toBe(output);
    expect(task.startTime).toBeInstanceOf(Date);
    expect(task.endTime!.getTime()).toBeGreaterThanOrEqual(task.startTime!.getTime());
    expect(task.executionDurationMs).toBeGreaterThanOrEqual(0);
    expect(task.processedByAgents.has("Researcher")).toBe(true);
    expect(task.id).toMatch(/^[0-9a-f-]{36}$/);

    expect(events.map((e) => e.type)).toEqual(["task_started", "task_completed"]);
    const [started, completed] = events as [CrewtsEvent<"task_started">, CrewtsEvent<"task_completed">];
    expect(started).toMatchObject({ taskId: task.id, taskName: "capital", agentRole: "Researcher", agentId: agent.id, context: "Earlier: France is in Europe." });
    expect(completed).toMatchObject({ taskId: task.id, output: "Paris is the capital." });
  });

  it("emits task_failed with the error and rethrows", async () => {
    const { agent } = fakeAgent([new Error("model down"), new Error("model down"), new Error("model down")]);
    const task = new Task({ description: "Do it", expectedOutput: "x", agent });
    const failed = vi.fn();
    eventBus.on("task_failed", failed);
    await expect(task.executeSync()).rejects.toThrow("model down");
    expect(failed).toHaveBeenCalledWith(expect.objectContaining({ taskId: task.id, error: "model down" }));
    expect(task.output).toBeUndefined();
    expect(task.endTime).toBeInstanceOf(Date);
  });

  it("names the output after the description when the task has no name, as CrewAI", async () => {
    const { agent } = fakeAgent([final("ok")]);
    const output = await new Task({ description: "Summarize the news", expectedOutput: "x", agent }).executeSync();
    expect(output.name).toBe("Summarize the news");
    expect(output.toJSON()).toMatchObject({ name: "Summarize the news", summary: "Summarize the news..." });
  });

  it("fails clearly without an agent, and uses a given agent over the task's", async () => {
    const task = new Task({ description: "Orphan task", expectedOutput: "x" });
    await expect(task.executeSync()).rejects.toThrow(TaskValidationError);
    await expect(task.executeSync()).rejects.toThrow("The task 'Orphan task' has no agent assigned");
    const { agent } = fakeAgent([final("done by the given agent")], {}, "Writer");
    const output = await task.executeSync({ agent });
    expect(output.raw).toBe("done by the given agent");
    expect(output.agent).toBe("Writer");
  });

  it("calls the callback with the final output", async () => {
    const { agent } = fakeAgent([final("result")]);
    const callback = vi.fn(async (_output: TaskOutput) => undefined);
    const task = new Task({ description: "Do it", expectedOutput: "x", agent, callback });
    const output = await task.executeSync();
    expect(callback).toHaveBeenCalledExactlyOnceWith(output);
  });

  it("adds the execution's usage to the agent", async () => {
    const { agent } = fakeAgent([final("ok")], { usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 } });
    await new Task({ description: "Do it", expectedOutput: "x", agent }).executeSync();
    expect(agent.usageMetrics).toEqual({ promptTokens: 10, completionTokens: 5, totalTokens: 15, successfulRequests: 1 });
  });
});

describe("Task prompt", () => {
  it("holds the description, expected output and context", async () => {
    const { agent, llm } = fakeAgent([final("ok")]);
    const task = new Task({ description: "Summarize the report", expectedOutput: "Three bullet points", agent });
    await task.executeSync({ context: "The report says sales grew 12%." });
    const user = userText(llm, 0);
    expect(user).toContain("Summarize the report");
    expect(user).toContain("Three bullet points");
    expect(user).toContain("The report says sales grew 12%.");
    expect(user.indexOf("Three bullet points")).toBeLessThan(user.indexOf("sales grew"));
    expect(task.promptContext).toBe("The report says sales grew 12%.");
  });

  it("adds Markdown instructions only when markdown is set", () => {
    const plain = new Task({ description: "Write", expectedOutput: "An article" });
    const md = new Task({ description: "Write", expectedOutput: "An article", markdown: true });
    expect(plain.prompt()).not.toContain("Markdown");
    expect(md.prompt()).toContain("Markdown");
    expect(md.prompt()).toContain("```language");
    expect(md.prompt().startsWith(plain.prompt())).toBe(true);
  });

  it("adds JSON schema instructions when there is an outputSchema", () => {
    const task = new Task({ description: "Extract", expectedOutput: "The person", outputSchema: z.object({ name: z.string(), age: z.number() }) });
    expect(task.prompt()).toContain("JSON");
    expect(task.prompt()).toContain('"age"');
  });
});

describe("Task tools", () => {
  const makeTool = (name: string) => tool({ name, description: `${name} tool`, schema: z.object({}), execute: () => name });

  it("uses given tools, else the task's, else the agent's", async () => {
    const agentTool = makeTool("agent_tool");
    const taskTool = makeTool("task_tool");
    const givenTool = makeTool("given_tool");
    const { agent, llm } = fakeAgent([final("a"), final("b"), final("c")]);
    agent.tools = [agentTool];
    const task = new Task({ description: "Do it", expectedOutput: "x", agent, tools: [taskTool] });
    await task.executeSync({ tools: [givenTool] });
    await task.executeSync();
    await new Task({ description: "Do it", expectedOutput: "x", agent }).executeSync({ tools: [] });
    const system = (i: number) => llm.calls[i]!.messages[0]!.content;
    expect(system(0)).toContain("given_tool");
    expect(system(0)).not.toContain("task_tool");
    expect(system(1)).toContain("task_tool");
    expect(system(1)).not.toContain("agent_tool");
    expect(system(2)).toContain("agent_tool");
  });
});

describe("Task options", () => {
  it("rejects unknown keys, naming them", () => {
    expect(() => new Task({ description: "d", expectedOutput: "e", expected_output: "e" } as never)).toThrow(TaskValidationError);
    expect(() => new Task({ description: "d", expectedOutput: "e", expected_output: "e" } as never)).toThrow('unknown option "expected_output"');
  });

  it("rejects bad values, naming the field", () => {
    expect(() => new Task({ description: "", expectedOutput: "e" })).toThrow(/description is required/);
    expect(() => new Task({ description: "d" } as never)).toThrow(/expectedOutput/);
    expect(() => new Task({ description: "d", expectedOutput: "e", guardrailMaxRetries: -1 })).toThrow(/guardrailMaxRetries/);
    expect(() => new Task({ description: "d", expectedOutput: "e", guardrail: 42 } as never)).toThrow(/guardrail/);
    expect(() => new Task({ description: "d", expectedOutput: "e", outputSchema: { type: "object" } } as never)).toThrow(/outputSchema: must be a zod schema/);
  });

  it("applies CrewAI's defaults", () => {
    const task = new Task({ description: "d", expectedOutput: "e" });
    expect(task.asyncExecution).toBe(false);
    expect(task.createDirectory).toBe(true);
    expect(task.guardrailMaxRetries).toBe(3);
    expect(task.tools).toEqual([]);
    expect(task.retryCount).toBe(0);
    expect(task.context).toBeUndefined();
    expect(new Task({ description: "d", expectedOutput: "e", context: [] }).context).toEqual([]);
  });

  it("keeps typed tasks assignable to Task and types output.parsed by the schema", () => {
    const typed = new Task({ description: "d", expectedOutput: "e", outputSchema: z.object({ n: z.number() }), callback: (o) => void o.parsed?.n });
    const list: Task[] = [typed];
    expect(list).toHaveLength(1);
    expectTypeOf(typed.output).toEqualTypeOf<TaskOutput<{ n: number }> | undefined>();
  });
});

describe("Task.copy", () => {
  it("copies with a new id, mapped agent and context, keeping original and current texts", () => {
    const { agent } = fakeAgent([]);
    const { agent: other } = fakeAgent([], {}, "Other");
    const first = new Task({ description: "first", expectedOutput: "x" });
    const firstCopy = new Task({ description: "first copy", expectedOutput: "x" });
    const task = new Task({ description: "About {topic}", expectedOutput: "x", agent, context: [first], markdown: true });
    task.interpolateInputs({ topic: "AI" });
    const copied = task.copy(() => other, (t) => (t === first ? firstCopy : t));
    expect(copied).toBeInstanceOf(Task);
    expect(copied.id).not.toBe(task.id);
    expect(copied.agent).toBe(other);
    expect(copied.context).toEqual([firstCopy]);
    expect(copied.description).toBe("About AI");
    expect(copied.options.description).toBe("About {topic}");
    expect(copied.markdown).toBe(true);
    copied.interpolateInputs({ topic: "ML" });
    expect(copied.description).toBe("About ML");
    expect(task.description).toBe("About AI");
  });
});
