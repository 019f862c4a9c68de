import { describe, expect, it } from "vitest";
import { ConditionalTask, Task, TaskOutput, TaskValidationError } from "../../src/task/index.js";
import { fakeAgent, final } from "./helpers.js";

const previous = (raw: string) => new TaskOutput({ description: "previous", raw, agent: "Researcher" });

describe("ConditionalTask", () => {
  it("decides from the previous output, with sync or async conditions", async () => {
    const sync = new ConditionalTask({ description: "Report", expectedOutput: "x", condition: (o) => o.raw.includes("success") });
    expect(await sync.shouldExecute(previous("it was a success"))).toBe(true);
    expect(await sync.shouldExecute(previous("it failed"))).toBe(false);
    const async = new ConditionalTask({ description: "Report", expectedOutput: "x", condition: async (o) => o.raw.length > 3 });
    expect(await async.shouldExecute(previous("long"))).toBe(true);
  });

  it("gives an empty skipped output, as CrewAI", () => {
    const { agent } = fakeAgent([]);
    const task = new ConditionalTask({ description: "Report", expectedOutput: "x", agent, name: "report", condition: () => false });
    const skipped = task.getSkippedTaskOutput();
    expect(skipped).toBeInstanceOf(TaskOutput);
    expect(skipped.raw).toBe("");
    expect(skipped.description).toBe("Report");
    expect(skipped.agent).toBe("Researcher");
    expect(skipped.outputFormat).toBe("raw");
  });

  it("requires a condition and is a Task that executes like one", async () => {
    expect(() => new ConditionalTask({ description: "Report", expectedOutput: "x" } as never)).toThrow(TaskValidationError);
    expect(() => new ConditionalTask({ description: "Report", expectedOutput: "x" } as never)).toThrow(/condition is required/);
    expect(() => new Task({ description: "d", expectedOutput: "x", condition: () => true } as never)).toThrow(/unknown option "condition"/);
    const { agent } = fakeAgent([final("reported")]);
    const task = new ConditionalTask({ description: "Report", expectedOutput: "x", agent, condition: () => true });
    expect(task).toBeInstanceOf(Task);
    expect((await task.executeSync()).raw).toBe("reported");
  });

  it("copies as a ConditionalTask with its condition", async () => {
    const task = new ConditionalTask({ description: "Report", expectedOutput: "x", condition: (o) => o.raw === "go" });
    const copied = task.copy();
    expect(copied).toBeInstanceOf(ConditionalTask);
    expect(copied.key).toBe(task.key);
    expect(await copied.shouldExecute(previous("go"))).toBe(true);
  });
});
