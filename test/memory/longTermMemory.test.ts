import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryValueError } from "../../src/memory/errors.js";
import { LONG_TERM_MEMORY_DB_FILE, LongTermMemory } from "../../src/memory/LongTermMemory.js";
import { FakeLLM } from "../../src/testing/index.js";
import { storageFile } from "./helpers.js";

const memories: LongTermMemory[] = [];
afterEach(async () => {
  for (const memory of memories.splice(0)) await memory.close();
});
const open = (options: ConstructorParameters<typeof LongTermMemory>[0] = {}) => {
  const memory = new LongTermMemory(options);
  memories.push(memory);
  return memory;
};

describe("LongTermMemory", () => {
  it("finds the suggestions of a similar, not identical, task", async () => {
    const memory = open();
    await memory.saveEvaluation({ taskDescription: "Write a blog post about solar energy trends in 2024", agentRole: "Writer", quality: 8, suggestions: ["Add recent statistics", "Cite sources"] });
    await memory.saveEvaluation({ taskDescription: "Compile a list of bakery suppliers", agentRole: "Buyer", quality: 10, suggestions: ["Check delivery times"] });
    const items = await memory.search("Write a short blog post about solar panels", { limit: 5 });
    expect(items.map((i) => i.content).sort()).toEqual(["Add recent statistics", "Cite sources"]);
    expect(items[0]?.metadata).toMatchObject({ taskDescription: "Write a blog post about solar energy trends in 2024", agentRole: "Writer", quality: 8 });
    expect(items[0]?.importance).toBeCloseTo(0.8, 10);
    await memory.flush();
    expect(existsSync(storageFile(LONG_TERM_MEMORY_DB_FILE))).toBe(true);
  });

  it("ranks equally similar tasks by quality and returns a repeated suggestion once", async () => {
    const memory = open({ path: storageFile("quality.db") });
    await memory.saveEvaluation({ taskDescription: "Summarize the quarterly sales report for Europe", agentRole: "Analyst", quality: 2, suggestions: ["Tip from a poor run", "Use tables"] });
    await memory.saveEvaluation({ taskDescription: "Summarize the quarterly sales report for Asia", agentRole: "Analyst", quality: 9, suggestions: ["Tip from a great run", "Use tables"] });
    const items = await memory.search("Summarize the quarterly sales report", { limit: 10 });
    expect(items.map((i) => i.content)).toEqual(["Tip from a great run", "Use tables", "Tip from a poor run"]);
    expect(items[1]?.metadata.quality).toBe(9);
    // Filters match the evaluation's fields.
    expect((await memory.search("quarterly sales", { filter: { quality: 2 }, limit: 10 })).map((i) => i.content)).toEqual(["Tip from a poor run", "Use tables"]);
  });

  it("saves a text as a lesson for the task named in metadata", async () => {
    const memory = open({ path: storageFile("lesson.db") });
    await memory.save("Always include the currency", { taskDescription: "Convert prices to euros", agentRole: "Accountant", quality: 7 });
    const [item] = await memory.search("convert the prices");
    expect(item).toMatchObject({ content: "Always include the currency", importance: 0.7, metadata: { agentRole: "Accountant", taskDescription: "Convert prices to euros" } });
  });

  it("rejects an invalid evaluation at save time", async () => {
    const memory = open({ path: storageFile("invalid.db") });
    await expect(memory.saveEvaluation({ taskDescription: "t", agentRole: "a", quality: 11, suggestions: [] })).rejects.toBeInstanceOf(MemoryValueError);
    await expect(memory.saveEvaluation({ taskDescription: " ", agentRole: "a", quality: 5, suggestions: [] })).rejects.toThrow(/taskDescription: must be a non-empty string/);
  });

  it("keeps an evaluator model override", () => {
    const llm = new FakeLLM(["{}"]);
    expect(open({ path: storageFile("llm.db"), llm }).llm).toBe(llm);
    expect(open({ path: storageFile("llm2.db") }).llm).toBeUndefined();
    expect(open({ path: storageFile("llm3.db"), llm: "openai/gpt-4o-mini" }).llm?.model).toBe("openai/gpt-4o-mini");
  });
});
