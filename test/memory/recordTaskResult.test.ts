import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { eventBus, type CrewtsEvent } from "../../src/events/index.js";
import { EntityMemory } from "../../src/memory/EntityMemory.js";
import { TaskEvaluationError } from "../../src/memory/errors.js";
import { ExternalMemory } from "../../src/memory/ExternalMemory.js";
import { LongTermMemory } from "../../src/memory/LongTermMemory.js";
import { Mem0Provider } from "../../src/memory/Mem0Provider.js";
import { recordTaskResult } from "../../src/memory/recordTaskResult.js";
import { ShortTermMemory } from "../../src/memory/ShortTermMemory.js";
import { FakeLLM } from "../../src/testing/index.js";
import { storageFile } from "./helpers.js";
import { startFakeMem0, type FakeMem0Server } from "./mem0Server.js";

let mem0: FakeMem0Server;
beforeAll(async () => {
  mem0 = await startFakeMem0();
});
afterAll(() => mem0.close());

let n = 0;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  eventBus.clear();
  for (const close of closers.splice(0)) await close().catch(() => undefined);
});
function memories() {
  const id = n++;
  const set = {
    short: new ShortTermMemory({ path: storageFile(`rec-short-${id}.db`) }),
    long: new LongTermMemory({ path: storageFile(`rec-long-${id}.db`) }),
    entity: new EntityMemory({ path: storageFile(`rec-entity-${id}.db`) }),
    external: new ExternalMemory({ provider: new Mem0Provider({ apiKey: mem0.apiKey, baseURL: mem0.url, userId: `rec-${id}` }) }),
  };
  for (const memory of Object.values(set)) closers.push(() => memory.close());
  return set;
}

const task = {
  taskDescription: "Research the e-bike market in Germany",
  expectedOutput: "A summary with market size",
  output: "The German e-bike market sold 2.1 million units; VanMoof and Riese & Müller lead.",
  agentRole: "Market Researcher",
  agentId: "agent-1",
  taskId: "task-1",
};
const evaluationJson = JSON.stringify({
  quality: 8,
  suggestions: ["Include price ranges", "Name the data source"],
  entities: [{ name: "VanMoof", type: "company", description: "Dutch e-bike maker", relationships: ["sells in Germany"] }],
});

describe("recordTaskResult", () => {
  it("saves the output, evaluates once, and fills long-term and entity memory", async () => {
    const m = memories();
    const llm = new FakeLLM([evaluationJson]);
    const record = await recordTaskResult({ ...task, llm, ...m });
    expect(record.failures).toEqual([]);
    expect(record.evaluation?.quality).toBe(8);
    expect(llm.calls).toHaveLength(1);
    for (const memory of Object.values(m)) await memory.flush();

    const [short] = await m.short.search("e-bike market Germany");
    expect(short).toMatchObject({ content: task.output, metadata: { type: "task_output", agentRole: "Market Researcher", agentId: "agent-1", taskId: "task-1", task: task.taskDescription } });
    const lessons = await m.long.search("Research the scooter market in France", { limit: 5 });
    expect(lessons.map((l) => l.content).sort()).toEqual(["Include price ranges", "Name the data source"]);
    expect(lessons[0]).toMatchObject({ importance: 0.8, metadata: { agentRole: "Market Researcher", expectedOutput: "A summary with market size" } });
    const [entity] = await m.entity.search("VanMoof");
    expect(entity?.content).toBe("VanMoof (company): Dutch e-bike maker. Relationships: sells in Germany");
    expect(mem0.memories.filter((x) => x.ids.user_id === "rec-0").map((x) => x.memory)).toEqual([task.output]);
  });

  it("uses long-term memory's evaluator model when it has one, and no model when only short-term memory is on", async () => {
    const agentLLM = new FakeLLM([]);
    const evaluator = new FakeLLM([evaluationJson]);
    const long = new LongTermMemory({ path: storageFile("rec-evaluator.db"), llm: evaluator });
    closers.push(() => long.close());
    await recordTaskResult({ ...task, llm: agentLLM, long });
    expect(evaluator.calls).toHaveLength(1);
    expect(agentLLM.calls).toHaveLength(0);

    const { short } = memories();
    const record = await recordTaskResult({ ...task, llm: agentLLM, short });
    expect(record).toEqual({ failures: [] });
    expect(agentLLM.calls).toHaveLength(0);
  });

  it("saves the entities of an evaluation without quality, and reports the lesson it could not save", async () => {
    const m = memories();
    const failed: CrewtsEvent<"memory_save_failed">[] = [];
    eventBus.on("memory_save_failed", (event) => {
      failed.push(event);
    });
    const reply = JSON.stringify({ entities: [{ name: "VanMoof", type: "company", description: "Dutch e-bike maker" }, { type: "nameless" }] });
    const record = await recordTaskResult({ ...task, llm: new FakeLLM([reply]), ...m });
    for (const memory of Object.values(m)) await memory.flush();
    const [entity] = await m.entity.search("VanMoof");
    expect(entity?.content).toBe("VanMoof (company): Dutch e-bike maker.");
    expect(await m.long.search(task.taskDescription)).toEqual([]);
    expect(record.failures.map((f) => [f.kind, f.error.message])).toEqual([
      ["long", expect.stringMatching(/no quality and no suggestions.*quality: missing/)],
      ["entity", expect.stringMatching(/entities\[1\]\.name/)],
    ]);
    expect(failed.map((e) => e.memoryKind)).toEqual(["long", "entity"]);
  });

  it("saves quality without suggestions, and suggestions without quality at the neutral 5", async () => {
    const m = memories();
    const rated = await recordTaskResult({ ...task, llm: new FakeLLM(['{"quality": 9}']), long: m.long, entity: m.entity });
    expect(rated.failures).toEqual([]);
    const unrated = await recordTaskResult({ ...task, taskDescription: "Research the scooter market", llm: new FakeLLM(['{"suggestions": ["Name the source"]}']), long: m.long });
    expect(unrated.failures).toEqual([]);
    await m.long.flush();
    const [lesson] = await m.long.search("Research the scooter market");
    expect(lesson).toMatchObject({ content: "Name the source", importance: 0.5 });
  });

  it("never throws: a garbage evaluation becomes memory_save_failed events and returned failures", async () => {
    const m = memories();
    const failed: CrewtsEvent<"memory_save_failed">[] = [];
    eventBus.on("memory_save_failed", (event) => {
      failed.push(event);
    });
    const record = await recordTaskResult({ ...task, llm: new FakeLLM(["no json here"]), ...m });
    expect(record.evaluation).toBeUndefined();
    expect(record.failures.map((f) => f.kind)).toEqual(["long", "entity"]);
    expect(record.failures[0]?.error).toBeInstanceOf(TaskEvaluationError);
    expect(failed.map((e) => e.memoryKind)).toEqual(["long", "entity"]);
    expect(failed[0]).toMatchObject({ agentRole: "Market Researcher", taskId: "task-1", agentId: "agent-1", error: expect.stringMatching(/not the expected JSON/) });
    // The output still reached short-term memory.
    expect(await m.short.search("e-bike market")).toHaveLength(1);

    const crashing = await recordTaskResult({ ...task, llm: new FakeLLM([new Error("model down")]), long: m.long });
    expect(crashing.failures.map((f) => [f.kind, f.error.message])).toEqual([["long", "model down"]]);
  });
});
