import { describe, expect, it } from "vitest";
import { Crew, CrewOutputError } from "../../src/crew/index.js";
import { ConditionalTask } from "../../src/task/index.js";
import { fakeAgent, final, task } from "./helpers.js";

describe("a kickoff that leaves no task output", () => {
  it("throws a CrewOutputError naming each task, its agent and why it left nothing", async () => {
    const { agent } = fakeAgent("Researcher", ["Thought: done\nFinal Answer:    "]);
    const writer = fakeAgent("Writer", [final("never asked")]);
    const crew = new Crew({
      agents: [agent, writer.agent],
      tasks: [
        task("Find facts", agent, { name: "research" }),
        new ConditionalTask({ description: "Write it up", expectedOutput: "Text", agent: writer.agent, name: "write", condition: (previous) => previous.raw !== "" }),
      ],
    });
    const error = await crew.kickoff().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CrewOutputError);
    const failure = error as CrewOutputError;
    expect(failure.code).toBe("no_valid_task_outputs");
    expect(failure.tasks).toEqual([
      { task: "research", agent: "Researcher", reason: "empty_answer" },
      { task: "write", agent: "Writer", reason: "skipped" },
    ]);
    expect(failure.message).toContain("task 'research' got an empty final answer from agent 'Researcher'");
    expect(failure.message).toContain("task 'write' was skipped");
    expect(failure.message).toContain("verbose: true");
  });
});
