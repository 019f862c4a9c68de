import { afterEach, describe, expect, it } from "vitest";
import type { SearchDocument } from "../../src/knowledge/store/SearchStore.js";
import { SQLiteSearchStore } from "../../src/knowledge/store/SQLiteSearchStore.js";
import { MemoryValueError } from "../../src/memory/errors.js";
import { ShortTermMemory, SHORT_TERM_MEMORY_DB_FILE } from "../../src/memory/ShortTermMemory.js";
import { existsSync } from "node:fs";
import { storageFile } from "./helpers.js";

const memories: ShortTermMemory[] = [];
afterEach(async () => {
  for (const memory of memories.splice(0)) await memory.close();
});
const open = (options: ConstructorParameters<typeof ShortTermMemory>[0] = {}) => {
  const memory = new ShortTermMemory(options);
  memories.push(memory);
  return memory;
};

/** A store that records every upsert batch. */
class RecordingStore extends SQLiteSearchStore {
  readonly batches: SearchDocument[][] = [];
  override upsert(documents: readonly SearchDocument[], options?: { signal?: AbortSignal }) {
    this.batches.push([...documents]);
    return super.upsert(documents, options);
  }
}

describe("ShortTermMemory", () => {
  it("defaults to short_term_memory.db in the storage directory", async () => {
    const memory = open();
    await memory.save("Default file check");
    await memory.flush();
    expect(existsSync(storageFile(SHORT_TERM_MEMORY_DB_FILE))).toBe(true);
  });

  it("scopes saves and searches to the current run", async () => {
    const path = storageFile("runs.db");
    const memory = open({ path });
    memory.startRun("run-1");
    await memory.save("The API returned a rate limit error", { agentRole: "Researcher" });
    memory.startRun("run-2");
    await memory.save("The API returned results for Paris");
    const items = await memory.search("API returned");
    expect(items.map((i) => i.content)).toEqual(["The API returned results for Paris"]);
    expect(items[0]?.metadata).toEqual({ runId: "run-2" });
    expect(memory.currentRunId).toBe("run-2");
    // A memory without a run sees every run's items.
    await memory.flush();
    const unscoped = open({ path });
    expect(await unscoped.search("API returned", { scoreThreshold: 0 })).toHaveLength(2);
  });

  it("writes saves queued together in one store upsert", async () => {
    const store = new RecordingStore({ path: ":memory:", collection: "short_term" });
    const memory = open({ store });
    await Promise.all([memory.save("first observation"), memory.save("second observation"), memory.save("third observation")]);
    await memory.flush();
    expect(store.batches.map((b) => b.length)).toEqual([3]);
    await memory.save("fourth observation");
    expect(await memory.search("observation", { limit: 10, scoreThreshold: 0 })).toHaveLength(4);
    expect(store.batches.map((b) => b.length)).toEqual([3, 1]);
  });

  it("stores objects as readable text and keeps metadata", async () => {
    const memory = open({ path: storageFile("objects.db") });
    await memory.save({ city: "Paris", population: 2_100_000, tags: ["capital", "france"] }, { tool: "lookup", agentRole: "Analyst" });
    await memory.save({ raw: "Final answer: the city is Lyon", pydantic: null });
    const [paris] = await memory.search("Paris population");
    expect(paris?.content).toBe("city: Paris\npopulation: 2100000\ntags:\n  - capital\n  - france");
    expect(paris?.metadata).toEqual({ tool: "lookup", agentRole: "Analyst" });
    expect((await memory.search("Lyon"))[0]?.content).toBe("Final answer: the city is Lyon");
  });

  it("rejects values it cannot store at save time, not later", async () => {
    const memory = open({ path: storageFile("invalid.db") });
    await expect(memory.save("   ")).rejects.toBeInstanceOf(MemoryValueError);
    await expect(memory.save(undefined)).rejects.toThrow("Cannot save undefined to short-term memory");
    await expect(memory.flush()).resolves.toBeUndefined();
  });

  it("filters by metadata", async () => {
    const memory = open({ path: storageFile("filter.db") });
    await memory.save("Tool result: weather is sunny", { tool: "weather" });
    await memory.save("Tool result: stock is up", { tool: "stocks" });
    const items = await memory.search("tool result", { filter: { tool: "stocks" }, scoreThreshold: 0 });
    expect(items.map((i) => i.content)).toEqual(["Tool result: stock is up"]);
  });
});
