import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { InMemorySearchStore } from "../../src/knowledge/store/InMemorySearchStore.js";
import type { SearchStore } from "../../src/knowledge/store/SearchStore.js";
import { mergeEntities } from "../../src/memory/Entity.js";
import { ENTITY_MEMORY_DB_FILE, EntityMemory } from "../../src/memory/EntityMemory.js";
import { MemoryValueError } from "../../src/memory/errors.js";
import { storageFile } from "./helpers.js";

const memories: EntityMemory[] = [];
afterEach(async () => {
  for (const memory of memories.splice(0)) await memory.close();
});
const open = (path?: string) => {
  const memory = new EntityMemory(path === undefined ? {} : { path });
  memories.push(memory);
  return memory;
};

describe("EntityMemory", () => {
  it("merges entities by name, case-insensitively, across saves and instances", async () => {
    const path = storageFile("entities.db");
    const first = open(path);
    await first.save({ name: "Ada Lovelace", type: "person", description: "Mathematician", relationships: ["worked with Babbage"] });
    await first.save({ name: "Analytical Engine", type: "machine", description: "A proposed mechanical computer" });
    await first.flush();
    await first.save([
      { name: "ada  lovelace", description: "English mathematician and writer", relationships: ["Worked with Babbage", "daughter of Byron"] },
      { name: "ADA LOVELACE", type: "person", description: "Short", relationships: ["wrote the first program"] },
    ]);
    const items = await first.search("Ada Lovelace mathematician", { scoreThreshold: 0, limit: 5 });
    const ada = items.filter((i) => i.content.toLowerCase().includes("lovelace"));
    expect(ada).toHaveLength(1);
    expect(ada[0]?.content).toBe("ADA LOVELACE (person): English mathematician and writer. Relationships: worked with Babbage; daughter of Byron; wrote the first program");
    expect(ada[0]?.metadata).toMatchObject({ entityName: "ADA LOVELACE", entityType: "person", entityDescription: "English mathematician and writer" });

    const reopened = open(path);
    await reopened.save({ name: "Ada Lovelace", type: "mathematician", description: "Wrote the first published notes on the engine", relationships: ["daughter of Byron"] });
    const [again] = await reopened.search("Ada Lovelace", { scoreThreshold: 0 });
    expect(again?.content).toBe("Ada Lovelace (mathematician): Wrote the first published notes on the engine. Relationships: worked with Babbage; daughter of Byron; wrote the first program");
    expect((await reopened.search("engine computer mathematician lovelace", { limit: 10, scoreThreshold: 0 })).length).toBe(2);
  });

  it("merges in a store written before get(ids) existed, found by a filtered search instead", async () => {
    const inner = new InMemorySearchStore();
    const legacy: SearchStore = {
      upsert: (docs, options) => inner.upsert(docs, options),
      search: (query, options) => inner.search(query, options),
      ids: (filter) => inner.ids(filter),
      delete: (ids) => inner.delete(ids),
      count: () => inner.count(),
      reset: () => inner.reset(),
      close: () => inner.close(),
    } as Omit<SearchStore, "get"> as SearchStore;
    const memory = new EntityMemory({ store: legacy });
    memories.push(memory);
    await memory.save({ name: "Globex", type: "company", description: "A customer", relationships: ["buys widgets"] });
    await memory.flush();
    await memory.save({ name: "globex", description: "A large customer in Ohio", relationships: ["pays late"] });
    await memory.flush();
    expect(await inner.count()).toBe(1);
    const [globex] = await memory.search("Globex customer", { scoreThreshold: 0 });
    expect(globex?.content).toBe("globex (company): A large customer in Ohio. Relationships: buys widgets; pays late");
  });

  it("keeps the longer description; the newer one when equally long", () => {
    const older = { name: "Acme", type: "company", description: "A long description of Acme", relationships: [] };
    expect(mergeEntities(older, { ...older, description: "Short" }).description).toBe("A long description of Acme");
    expect(mergeEntities(older, { ...older, description: "A new description of Acme!" }).description).toBe("A new description of Acme!");
    expect(mergeEntities(older, { ...older, type: "entity" }).type).toBe("company");
  });

  it("rejects values that are not entities when saved", async () => {
    const memory = open(storageFile("bad-entities.db"));
    await expect(memory.save("Ada Lovelace")).rejects.toBeInstanceOf(MemoryValueError);
    await expect(memory.save([{ name: "ok" }, { name: "" }])).rejects.toThrow(/at index 1 is invalid: name: must be a non-empty string/);
  });

  it("defaults to entity_memory.db in the storage directory", async () => {
    const memory = open();
    await memory.save({ name: "Default", type: "test", description: "file check" });
    await memory.flush();
    expect(existsSync(storageFile(ENTITY_MEMORY_DB_FILE))).toBe(true);
  });
});
