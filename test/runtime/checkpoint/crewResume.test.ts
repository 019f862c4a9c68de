import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/index.js";
import { Crew, Process } from "../../../src/crew/index.js";
import { eventBus } from "../../../src/events/index.js";
import { checkpointNow } from "../../../src/runtime/checkpoint/CheckpointRecorder.js";
import { listCheckpoints, loadCheckpoint } from "../../../src/runtime/checkpoint/checkpointStores.js";
import { CheckpointError } from "../../../src/runtime/checkpoint/errors.js";
import type { CheckpointStore, CrewProgress } from "../../../src/runtime/checkpoint/types.js";
import { ConditionalTask, Task } from "../../../src/task/index.js";
import { FakeLLM } from "../../../src/testing/index.js";
import { useTempStorageDir } from "../../flow/helpers.js";

useTempStorageDir("crewts-crew-resume-");
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "crewts-cp-crew-"));
});
afterEach(async () => {
  eventBus.clear();
  await rm(dir, { recursive: true, force: true });
});

const final = (text: string) => `Thought: I now know the final answer\nFinal Answer: ${text}`;

/** A model that answers "done <step>" for the step named in the task, and fails on the steps in `failOn`. */
function model(calls: string[], failOn: Set<string> = new Set()) {
  return new FakeLLM(
    (messages) => {
      const text = messages.map((m) => m.content).join("\n");
      const step = /step-(\w+)/.exec(text.slice(text.lastIndexOf("Current Task:")))?.[1] ?? "?";
      if (failOn.has(step)) throw new Error(`model down during step-${step}`);
      calls.push(step);
      return final(`done ${step}`);
    },
    { usage: { promptTokens: 3, completionTokens: 1, totalTokens: 4 } },
  );
}

function buildCrew(calls: string[], failOn: Set<string>, options: { async?: boolean; conditional?: boolean; location: string; provider?: "json" | "sqlite" | CheckpointStore; maxCheckpoints?: number }) {
  const agent = new Agent({ role: "Worker", goal: "work", backstory: "b", llm: model(calls, failOn) });
  const tasks = ["a", "b", "c", "d", "e"].map((s, i) => {
    const base = { description: `Do step-${s} about {topic}`, expectedOutput: "done", agent };
    if (options.conditional && i === 2) return new ConditionalTask({ ...base, condition: (prev) => !prev.raw.includes("done b") });
    return new Task({ ...base, ...(options.async && (i === 1 || i === 2) ? { asyncExecution: true } : {}) });
  });
  return new Crew({
    agents: [agent],
    tasks,
    name: "five",
    checkpoint: { location: options.location, ...(options.provider ? { provider: options.provider } : {}), ...(options.maxCheckpoints ? { maxCheckpoints: options.maxCheckpoints } : {}) },
  });
}

describe("crew checkpoints and resume", () => {
  for (const provider of ["sqlite", "json"] as const) {
    it(`resumes a failed sequential crew (${provider}): finished tasks are not run again and are the next tasks' context`, async () => {
      const first: string[] = [];
      await expect(buildCrew(first, new Set(["d"]), { location: dir, provider }).kickoff({ topic: "tides" })).rejects.toThrow(/step-d/);
      expect(first).toEqual(["a", "b", "c"]);
      const list = await listCheckpoints(dir);
      expect(list.map((c) => c.event)).toEqual(["task_completed", "task_completed", "task_completed"]);
      // listCheckpoints gives whole checkpoints: inputs and progress too.
      expect(list[0]!.inputs).toEqual({ topic: "tides" });
      expect((list[0]!.progress as CrewProgress).tasks).toHaveLength(1);
      const latest = await loadCheckpoint(list.at(-1)!.id, { location: dir });
      expect(latest.inputs).toEqual({ topic: "tides" });
      expect((latest.progress as CrewProgress).tasks.map((t) => t.output.raw)).toEqual(["done a", "done b", "done c"]);
      expect(latest.usage.totalTokens).toBe(12);

      const second: string[] = [];
      const crew = buildCrew(second, new Set(), { location: dir, provider });
      const out = await crew.kickoff(undefined, { fromCheckpoint: latest.id });
      expect(second).toEqual(["d", "e"]);
      expect(out.tasksOutput.map((t) => t.raw)).toEqual(["done a", "done b", "done c", "done d", "done e"]);
      // Usage so far plus the resumed part.
      expect(out.tokenUsage.totalTokens).toBe(20);
      // The stored inputs were used: the resumed tasks still read "tides".
      const resumedLine = (await listCheckpoints(dir)).filter((c) => c.lineage === latest.lineage);
      expect(resumedLine).toHaveLength(5);
      expect(resumedLine[3]!.parentId).toBe(latest.id);
    });
  }

  it("restores finished async tasks and conditional-task decisions", async () => {
    const first: string[] = [];
    await expect(buildCrew(first, new Set(["e"]), { location: dir, async: true, conditional: true }).kickoff({ topic: "x" })).rejects.toThrow();
    const latest = (await listCheckpoints(dir)).at(-1)!;
    const cp = await loadCheckpoint(latest.id, { location: dir });
    // c is a skipped conditional task (b said "done b"), recorded as such.
    expect((cp.progress as CrewProgress).tasks.map((t) => [t.index, t.skipped ?? false])).toEqual([
      [0, false],
      [1, false],
      [2, true],
      [3, false],
    ]);
    const second: string[] = [];
    const out = await buildCrew(second, new Set(), { location: dir, async: true, conditional: true }).kickoff(undefined, { fromCheckpoint: latest.id });
    expect(second).toEqual(["e"]);
    expect(out.tasksOutput.map((t) => t.raw)).toEqual(["done a", "done b", "", "done d", "done e"]);
  });

  it("resumes a hierarchical crew without running its finished tasks again", async () => {
    const managerCalls: string[] = [];
    const build = (failOn: Set<string>) => {
      const worker = new Agent({ role: "Worker", goal: "w", backstory: "b", llm: model([]) });
      return new Crew({
        agents: [worker],
        tasks: ["a", "b", "c"].map((s) => new Task({ description: `Do step-${s}`, expectedOutput: "done" })),
        process: Process.hierarchical,
        managerLLM: model(managerCalls, failOn),
        checkpoint: { location: dir },
      });
    };
    await expect(build(new Set(["c"])).kickoff()).rejects.toThrow();
    expect(managerCalls).toEqual(["a", "b"]);
    const latest = (await listCheckpoints(dir)).at(-1)!;
    managerCalls.length = 0;
    const out = await build(new Set()).kickoff({}, { fromCheckpoint: latest.id });
    expect(managerCalls).toEqual(["c"]);
    expect(out.raw).toBe("done c");
  });

  it("resumes from a JSON checkpoint file path", async () => {
    await expect(buildCrew([], new Set(["c"]), { location: dir, provider: "json" }).kickoff({ topic: "t" })).rejects.toThrow();
    const files = (await readdir(dir)).filter((f) => f.endsWith(".json")).sort();
    const calls: string[] = [];
    const out = await buildCrew(calls, new Set(), { location: join(dir, "elsewhere") }).kickoff(undefined, { fromCheckpoint: join(dir, files.at(-1)!) });
    expect(calls).toEqual(["c", "d", "e"]);
    expect(out.tasksOutput).toHaveLength(5);
  });

  it("forks a checkpoint into a new lineage that runs beside the original", async () => {
    await expect(buildCrew([], new Set(["c"]), { location: dir }).kickoff({ topic: "t" })).rejects.toThrow();
    const origin = (await listCheckpoints(dir)).at(-1)!;
    const fork = await Crew.fork(origin.id, { branch: "experiment-a", location: dir });
    expect(fork).toMatchObject({ branch: "experiment-a", parentId: origin.id, event: "fork", kind: "crew" });
    expect(fork.lineage).not.toBe(origin.lineage);
    const calls: string[] = [];
    await buildCrew(calls, new Set(), { location: dir }).kickoff(undefined, { fromCheckpoint: fork.id });
    expect(calls).toEqual(["c", "d", "e"]);
    const branch = await listCheckpoints(dir, { branch: "experiment-a" });
    expect(branch).toHaveLength(4);
    expect(new Set(branch.map((c) => c.lineage))).toEqual(new Set([fork.lineage]));
    expect(await listCheckpoints(dir, { lineage: origin.lineage })).toHaveLength(2);
  });

  it("keeps at most maxCheckpoints per lineage", async () => {
    await buildCrew([], new Set(), { location: dir, maxCheckpoints: 2 }).kickoff({ topic: "t" });
    const list = await listCheckpoints(dir);
    expect(list).toHaveLength(2);
    expect(((await loadCheckpoint(list[1]!.id, { location: dir })).progress as CrewProgress).tasks).toHaveLength(5);
  });

  it("goes on when an automatic write fails, emitting checkpoint_failed", async () => {
    const failing: CheckpointStore = {
      save: () => Promise.reject(new Error("disk on fire")),
      load: () => Promise.resolve(undefined),
      list: () => Promise.resolve([]),
      prune: () => Promise.resolve(),
    };
    const failures: string[] = [];
    eventBus.on("checkpoint_failed", (e) => void failures.push(e.error));
    const out = await buildCrew([], new Set(), { location: dir, provider: failing }).kickoff({ topic: "t" });
    expect(out.tasksOutput).toHaveLength(5);
    expect(failures).toEqual(Array(5).fill("disk on fire"));
  });

  it("writes on any configured event, and checkpointNow rethrows and needs a run", async () => {
    await expect(checkpointNow()).rejects.toThrow(CheckpointError);
    const written: string[] = [];
    eventBus.on("checkpoint_written", (e) => void written.push(e.event));
    const agent = new Agent({ role: "Worker", goal: "w", backstory: "b", llm: model([]) });
    const ids: string[] = [];
    const crew = new Crew({
      agents: [agent],
      tasks: [new Task({ description: "Do step-a", expectedOutput: "x", agent, callback: async () => void ids.push(await checkpointNow()) })],
      checkpoint: { location: dir, onEvents: ["task_started", "task_completed"] },
    });
    await crew.kickoff();
    expect(written).toEqual(["task_started", "manual", "task_completed"]);
    expect((await loadCheckpoint(ids[0]!, { location: dir })).event).toBe("manual");
  });

  it("refuses a checkpoint of another shape with a clear error", async () => {
    await expect(buildCrew([], new Set(), { location: dir }).kickoff(undefined, { fromCheckpoint: "nope" })).rejects.toThrow(/No checkpoint "nope"/);
  });
});
