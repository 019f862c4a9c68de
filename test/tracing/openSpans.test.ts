import { afterEach, describe, expect, it } from "vitest";
import { eventBus } from "../../src/events/index.js";
import type { DisableTracing } from "../../src/tracing/index.js";
import { parentOf, traceToMemory, tree } from "./helpers.js";

let disable: DisableTracing | undefined;
afterEach(async () => {
  await disable?.();
  disable = undefined;
  eventBus.clear();
});

const usage = { promptTokens: 1, completionTokens: 1, totalTokens: 2, successfulRequests: 1 };

describe("spans left open", () => {
  it("ends the spans whose end event never came with their parent, deepest first, and a later run of the same ids starts fresh", async () => {
    const t = await traceToMemory();
    disable = t.disable;
    for (const kickoffId of ["run-1", "run-2"]) {
      const source = { crewId: "crew-1", kickoffId };
      eventBus.emit("crew_kickoff_started", { ...source, inputs: {} });
      eventBus.emit("task_started", { ...source, taskId: "task-1", context: "" });
      eventBus.emit("agent_execution_started", { ...source, taskId: "task-1", agentId: "agent-1", agentRole: "Writer", taskPrompt: "Write", tools: [] });
      // Neither the agent nor the task ends (as when a run throws past their emitters): the run does.
      eventBus.emit("crew_kickoff_completed", { ...source, output: "done", tokenUsage: usage });
    }
    const spans = t.spans();
    expect(spans.map((s) => s.name)).toEqual(["agent", "task", "crew.kickoff", "agent", "task", "crew.kickoff"]);
    expect(tree(spans)).toEqual(["crew.kickoff", "  task", "    agent", "crew.kickoff", "  task", "    agent"]);
    const [, task1, crew1, , task2, crew2] = spans;
    expect(parentOf(task1!, spans)).toBe(crew1);
    expect(parentOf(task2!, spans)).toBe(crew2);
    expect(crew1!.spanContext().traceId).not.toBe(crew2!.spanContext().traceId);
  });

  it("ends a child left open only once: an end event after its parent ended changes nothing", async () => {
    const t = await traceToMemory();
    disable = t.disable;
    const source = { crewId: "crew-1", kickoffId: "run-1" };
    eventBus.emit("crew_kickoff_started", { ...source, inputs: {} });
    eventBus.emit("task_started", { ...source, taskId: "task-1", context: "" });
    eventBus.emit("crew_kickoff_completed", { ...source, output: "done", tokenUsage: usage });
    eventBus.emit("task_completed", { ...source, taskId: "task-1", output: "late" });
    expect(t.spans().map((s) => s.name)).toEqual(["task", "crew.kickoff"]);
  });
});
