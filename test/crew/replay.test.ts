import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Crew, CrewReplayError, Process } from "../../src/crew/index.js";
import { eventBus } from "../../src/events/index.js";
import { InMemoryTaskOutputStore, SQLiteTaskOutputStore } from "../../src/storage/index.js";
import { ConditionalTask } from "../../src/task/index.js";
import { FakeLLM } from "../../src/testing/index.js";
import { fakeAgent, final, task, userText } from "./helpers.js";

// Replay and the task output store behind it. Every test file has its own storage directory
// (test/setup.ts), so the default SQLite store here is this file's alone.

afterEach(() => {
  eventBus.clear();
  vi.restoreAllMocks();
});

const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };

/** Each agent answers `<prefix>#<its call number>`, so every prompt shows which run produced its context. */
function numbered(role: string, prefix: string) {
  return fakeAgent(role, (_messages, call) => final(`${prefix}#${call + 1}`), { usage });
}

/** Research, write, edit: three tasks on three agents, each reading all earlier outputs. */
function threeTaskCrew(options: { store?: InMemoryTaskOutputStore } = {}) {
  const researcher = numbered("Researcher", "research");
  const writer = numbered("Writer", "draft");
  const editor = numbered("Editor", "edit");
  const tasks = [
    task("Research {topic}", researcher.agent),
    task("Write about {topic}", writer.agent),
    task("Edit the article on {topic}", editor.agent),
  ];
  const crew = new Crew({
    agents: [researcher.agent, writer.agent, editor.agent],
    tasks,
    ...(options.store ? { taskOutputStore: options.store } : {}),
  });
  return { crew, tasks, researcher, writer, editor };
}

describe("replay", () => {
  it("reruns from the 2nd of 3 tasks with the stored 1st output as context and the stored inputs", async () => {
    const { crew, tasks, researcher, writer, editor } = threeTaskCrew();
    await crew.kickoff({ topic: "cats" });
    expect(userText(writer.llm, 0)).toContain("research#1");

    const output = await crew.replay(tasks[1]!.id);

    expect(researcher.llm.calls).toHaveLength(1);
    expect(writer.llm.calls).toHaveLength(2);
    expect(editor.llm.calls).toHaveLength(2);
    const rerun = userText(writer.llm, 1);
    expect(rerun).toContain("Write about cats");
    expect(rerun).toContain("This is the context you're working with:\nresearch#1");
    expect(userText(editor.llm, 1)).toContain("draft#2");
    expect(output.raw).toBe("edit#2");
    expect(output.tasksOutput.map((o) => o.raw)).toEqual(["research#1", "draft#2", "edit#2"]);
    expect(output.tasksOutput[0]).toMatchObject({ description: "Research cats", agent: "Researcher" });
    expect(tasks[0]!.output?.raw).toBe("research#1");
    // Only the tasks that ran again count.
    expect(output.tokenUsage).toEqual({ promptTokens: 20, completionTokens: 10, totalTokens: 30, successfulRequests: 2 });
    expect(crew.usageMetrics).toEqual(output.tokenUsage);

    const store = new SQLiteTaskOutputStore();
    const stored = await store.loadAll().finally(() => store.close());
    expect(stored.map((r) => [r.taskIndex, r.wasReplayed, r.inputs])).toEqual([
      [0, false, { topic: "cats" }],
      [1, true, { topic: "cats" }],
      [2, true, { topic: "cats" }],
    ]);
  });

  it("uses new inputs when given, for the tasks that run again", async () => {
    const { crew, tasks, writer, editor } = threeTaskCrew({ store: new InMemoryTaskOutputStore() });
    await crew.kickoff({ topic: "cats" });
    const output = await crew.replay(tasks[2]!.id, { topic: "dogs" });
    expect(writer.llm.calls).toHaveLength(1);
    expect(userText(editor.llm, 1)).toContain("Edit the article on dogs");
    expect(userText(editor.llm, 1)).toContain("research#1");
    expect(userText(editor.llm, 1)).toContain("draft#1");
    expect(output.tasksOutput.map((o) => o.raw)).toEqual(["research#1", "draft#1", "edit#2"]);
  });

  it("replays on a crew built anew (new task ids), as `crewts replay` does, from the default SQLite store", async () => {
    const first = threeTaskCrew();
    await first.crew.kickoff({ topic: "owls" });
    const secondTaskId = first.tasks[1]!.id;

    const rebuilt = threeTaskCrew();
    expect(rebuilt.tasks[1]!.id).not.toBe(secondTaskId);
    const output = await rebuilt.crew.replay(secondTaskId);
    expect(rebuilt.researcher.llm.calls).toHaveLength(0);
    expect(userText(rebuilt.writer.llm, 0)).toContain("Write about owls");
    expect(userText(rebuilt.writer.llm, 0)).toContain("research#1");
    expect(output.tasksOutput.map((o) => o.raw)).toEqual(["research#1", "draft#1", "edit#1"]);
  });

  it("does not run the before-kickoff hooks again on the stored inputs, but does on new ones", async () => {
    const seen: unknown[] = [];
    const a = fakeAgent("Researcher", () => final("a"));
    const b = fakeAgent("Writer", () => final("b"));
    const tasks = [task("Research {topic}", a.agent), task("Write {topic}", b.agent)];
    const crew = new Crew({
      agents: [a.agent, b.agent],
      tasks,
      taskOutputStore: new InMemoryTaskOutputStore(),
      beforeKickoff: [(inputs) => {
        seen.push(inputs);
        return { ...inputs, topic: `${String(inputs.topic)}!` };
      }],
    });
    await crew.kickoff({ topic: "cats" });
    await crew.replay(tasks[1]!.id);
    expect(userText(b.llm, 1)).toContain("Write cats!");
    await crew.replay(tasks[1]!.id, { topic: "dogs" });
    expect(userText(b.llm, 2)).toContain("Write dogs!");
    expect(seen).toEqual([{ topic: "cats" }, { topic: "dogs" }]);
  });

  it("keeps a skipped conditional task's empty output out of the context of the tasks it replays", async () => {
    const a = fakeAgent("Researcher", () => final("facts"));
    const b = fakeAgent("Checker", []);
    const c = fakeAgent("Writer", () => final("post"));
    const tasks = [
      task("Research", a.agent),
      new ConditionalTask({ description: "Check", expectedOutput: "ok", agent: b.agent, condition: () => false }),
      task("Write", c.agent),
    ];
    const crew = new Crew({ agents: [a.agent, b.agent, c.agent], tasks, taskOutputStore: new InMemoryTaskOutputStore() });
    await crew.kickoff();
    const output = await crew.replay(tasks[2]!.id);
    expect(output.tasksOutput.map((o) => o.raw)).toEqual(["facts", "", "post"]);
    expect(userText(c.llm, 1)).toMatch(/working with:\nfacts$/m);
    expect(b.llm.calls).toHaveLength(0);
  });

  it("names an unknown task id, and needs a kickoff first", async () => {
    const { crew, tasks } = threeTaskCrew({ store: new InMemoryTaskOutputStore() });
    await expect(crew.replay(tasks[0]!.id)).rejects.toThrow(/Task with id .* not found in the crew's tasks.*0 stored/);
    await crew.kickoff({ topic: "cats" });
    const error = await crew.replay("no-such-task").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CrewReplayError);
    expect((error as Error).message).toContain("Task with id no-such-task not found in the crew's tasks");
  });

  it("refuses a hierarchical crew", async () => {
    const worker = fakeAgent("Writer", []);
    const crew = new Crew({ agents: [worker.agent], tasks: [task("Write", undefined)], process: Process.hierarchical, managerLLM: new FakeLLM([]) });
    await expect(crew.replay(crew.tasks[0]!.id)).rejects.toThrow(CrewReplayError);
    await expect(crew.replay(crew.tasks[0]!.id)).rejects.toThrow("Replay is not supported for hierarchical process");
  });

  it("has nothing to replay after resetMemories('kickoff_outputs')", async () => {
    const { crew, tasks } = threeTaskCrew();
    await crew.kickoff({ topic: "cats" });
    const store = new SQLiteTaskOutputStore();
    try {
      expect(await store.loadAll()).toHaveLength(3);
      await crew.resetMemories("kickoff_outputs");
      expect(await store.loadAll()).toEqual([]);
    } finally {
      await store.close();
    }
    await expect(crew.replay(tasks[1]!.id)).rejects.toThrow(CrewReplayError);
  });
});

describe("the task output store", () => {
  it("warns once and lets the crew finish when it cannot be written (a read-only storage directory)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "crewts-readonly-"));
    const previous = process.env.CREWTS_STORAGE_DIR;
    try {
      // A file where the storage directory should be: nothing can be created below it.
      const blocked = join(dir, "not-a-directory");
      await writeFile(blocked, "");
      process.env.CREWTS_STORAGE_DIR = join(blocked, "storage");
      const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
      const { crew, tasks } = threeTaskCrew();
      const output = await crew.kickoff({ topic: "cats" });
      expect(output.tasksOutput).toHaveLength(3);
      const storeWarnings = warn.mock.calls.filter(([, options]) => options?.code === "CREWTS_TASK_OUTPUT_STORE");
      expect(storeWarnings).toHaveLength(1);
      expect(String(storeWarnings[0]![0])).toContain("CREWTS_STORAGE_DIR");
      await expect(crew.replay(tasks[1]!.id)).rejects.toThrow("Could not load task outputs");
    } finally {
      process.env.CREWTS_STORAGE_DIR = previous;
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("kickoffForEach and replay", () => {
  it("leaves no kickoff to replay, as CrewAI", async () => {
    const { crew, tasks } = threeTaskCrew();
    await crew.kickoff({ topic: "cats" });
    await crew.kickoffForEach([{ topic: "a" }, { topic: "b" }]);
    const store = new SQLiteTaskOutputStore();
    try {
      expect(await store.loadAll()).toEqual([]);
    } finally {
      await store.close();
    }
    await expect(crew.replay(tasks[1]!.id)).rejects.toThrow(CrewReplayError);
  });
});
