import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/Agent.js";
import { CrewTestError, EVALUATOR_AGENT, formatTestTable, testCrew, type TestableCrew, type TestableTask } from "../../src/crew/evaluation.js";
import { eventBus } from "../../src/events/EventBus.js";
import { Task } from "../../src/task/Task.js";
import { TaskOutput } from "../../src/task/TaskOutput.js";
import { FakeLLM } from "../../src/testing/index.js";

afterEach(() => eventBus.clear());

/** A crew of real Agents and Tasks, run in order. */
class MiniCrew implements TestableCrew {
  kickoffs = 0;
  copies = 0;
  constructor(readonly tasks: Task[]) {}

  async kickoff(): Promise<{ tasksOutput: TaskOutput[] }> {
    this.kickoffs++;
    const tasksOutput: TaskOutput[] = [];
    for (const task of this.tasks) tasksOutput.push(await task.executeSync());
    return { tasksOutput };
  }

  copy(): MiniCrew {
    this.copies++;
    return new MiniCrew(this.tasks);
  }
}

function makeCrew() {
  let n = 0;
  const llm = new FakeLLM(() => `Thought: done\nFinal Answer: answer ${++n}`);
  const researcher = new Agent({ role: "Researcher", goal: "Find facts", backstory: "b", llm });
  const writer = new Agent({ role: "Writer", goal: "Write posts", backstory: "b", llm });
  return new MiniCrew([
    new Task({ description: "Research AI", expectedOutput: "Five facts", agent: researcher }),
    new Task({ description: "Write a post", expectedOutput: "A short post", agent: writer }),
  ]);
}

describe("testCrew", () => {
  it("scores every task output of every run and prints the table", async () => {
    const crew = makeCrew();
    const evalLLM = new FakeLLM(['{"quality": 9}', '{"quality": 7}', "```json\n{\"quality\": \"10\"}\n```", '{"quality": 8}']);
    const printed: string[] = [];
    const result = await testCrew(crew, { iterations: 2, evalLLM, inputs: { topic: "AI" }, print: (t) => printed.push(t) });

    expect(crew.copies).toBe(1);
    expect(result.iterations.map((r) => r.taskScores)).toEqual([
      [9, 7],
      [10, 8],
    ]);
    expect(result.averages.taskScores).toEqual([9.5, 7.5]);
    expect(result.averages.runScores).toEqual([8, 9]);
    expect(result.averages.overall).toBe(8.5);
    for (const run of result.iterations) {
      expect(run.durationsMs).toHaveLength(2);
      for (const ms of run.durationsMs) expect(ms).toBeGreaterThanOrEqual(0);
      expect(run.totalDurationMs).toBeGreaterThanOrEqual(0);
    }
    expect(result.usage.successfulRequests).toBe(4);

    // The evaluator sees the task, its expected output, the agent and the output.
    const first = evalLLM.calls[0]!.messages;
    expect(first[0]!.content).toContain(EVALUATOR_AGENT.role);
    for (const text of ["Research AI", "Five facts", "Researcher", "Find facts", "answer 1", "quality"]) expect(first.at(-1)!.content).toContain(text);

    expect(printed).toEqual([result.table]);
    const lines = result.table.split("\n");
    expect(lines[0]).toBe("Tasks Scores");
    expect(lines[3]).toMatch(/^\| Tasks\/Crew\/Agents +\| Run 1 \| Run 2 \| Avg\. Total \| Agents +\|$/);
    expect(result.table).toMatch(/\| Task 1 +\| 9\.0 +\| 10\.0 +\| 9\.5 +\| - Researcher +\|/);
    expect(result.table).toMatch(/\| Task 2 +\| 7\.0 +\| 8\.0 +\| 7\.5 +\| - Writer +\|/);
    expect(result.table).toMatch(/\| Crew +\| 8\.00 +\| 9\.00 +\| 8\.5 +\|/);
    expect(result.table).toMatch(/\| Execution Time \(s\) +\| \d+\.\d +\| \d+\.\d +\| \d+\.\d +\|/);
    // Every line of the box has the same width.
    expect(new Set(lines.slice(2).map((l) => l.length)).size).toBe(1);
  });

  it("keeps scores on the 1-10 scale and asks the model again for unreadable answers", async () => {
    const crew = makeCrew();
    const evalLLM = new FakeLLM(['{"quality": 0}', "It was quite good.", '{"quality": 15}']);
    const result = await testCrew(crew, { iterations: 1, evalLLM, print: () => undefined });
    expect(result.iterations[0]!.taskScores).toEqual([1, 10]);
    expect(result.usage.successfulRequests).toBe(3);
  });

  it("measures durations from task events for tasks that do not time themselves, and marks missing outputs", async () => {
    const tasks: TestableTask[] = [
      { id: "a", description: "First", expectedOutput: "x", agent: { role: "Solo", goal: "g" } },
      { id: "b", description: "Second", expectedOutput: "y", agent: { role: "Solo", goal: "g" } },
    ];
    const crew: TestableCrew = {
      tasks,
      async kickoff() {
        eventBus.emit("task_started", { taskId: "a", context: "" });
        await new Promise((resolve) => setTimeout(resolve, 5));
        eventBus.emit("task_completed", { taskId: "a", output: "one" });
        return { tasksOutput: [new TaskOutput({ description: "First", raw: "one", agent: "Solo" })] };
      },
    };
    const evalLLM = new FakeLLM(['{"quality": 6}']);
    const result = await testCrew(crew, { iterations: 1, evalLLM, print: () => undefined });
    expect(result.iterations[0]!.taskScores[0]).toBe(6);
    expect(result.iterations[0]!.taskScores[1]).toBeNaN();
    expect(result.iterations[0]!.durationsMs[0]).toBeGreaterThanOrEqual(4);
    expect(result.averages.overall).toBe(6);
    expect(result.table).toMatch(/\| Task 2 +\| - +\| - +\|/);
    expect(eventBus.hasListeners("task_started")).toBe(false);
  });

  it("rejects invalid options before running", async () => {
    const crew = makeCrew();
    await expect(testCrew(crew, { iterations: 0, evalLLM: new FakeLLM([]) })).rejects.toThrow(CrewTestError);
    await expect(testCrew(crew, { iterations: 1, evalLLM: "" })).rejects.toThrow(/evalLLM/);
    expect(crew.copies).toBe(0);
  });
});

describe("formatTestTable", () => {
  it("has no empty rows: tasks follow each other and a rule sets the crew's totals apart", () => {
    const table = formatTestTable(
      [{ taskScores: [9, 7], durationsMs: [1000, 2000], totalDurationMs: 3000 }],
      { taskScores: [9, 7], runScores: [8], overall: 8, durationMs: 3000 },
      [["Researcher"], ["Writer"]],
    );
    const lines = table.split("\n");
    expect(lines.filter((line) => /^\|[\s|]*\|$/.test(line))).toEqual([]);
    const task2 = lines.findIndex((line) => line.startsWith("| Task 2"));
    expect(lines[task2 - 1]).toMatch(/^\| Task 1 /);
    expect(lines[task2 + 1]).toMatch(/^\+-+/);
    expect(lines[task2 + 2]).toMatch(/^\| Crew /);
  });

  it("lists every agent of a task on its own line", () => {
    const table = formatTestTable(
      [{ taskScores: [9], durationsMs: [1200], totalDurationMs: 42_000 }],
      { taskScores: [9], runScores: [9], overall: 9, durationMs: 42_000 },
      [["Senior Researcher", "Reporting Analyst"]],
    );
    expect(table).toContain("| Task 1             | 9.0   | 9.0        | - Senior Researcher |");
    expect(table).toContain("|                    |       |            | - Reporting Analyst |");
    expect(table).toContain("| Execution Time (s) | 42.0  | 42.0       |                     |");
  });
});
