import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ftsMatch, informativeTerms } from "../../src/knowledge/store/SearchStore.js";
import { InMemorySearchStore } from "../../src/knowledge/store/InMemorySearchStore.js";
import { SQLiteSearchStore } from "../../src/knowledge/store/SQLiteSearchStore.js";

const frequencies: Record<string, number> = { task: 900, report: 600, onboarding: 40, initech: 25, zebra: 0 };
const documentsWith = (term: string) => frequencies[term] ?? 0;

describe("informativeTerms", () => {
  it("drops words in half the documents or more when the other words match enough documents", () => {
    expect(informativeTerms(["task", "onboarding", "report", "initech"], 1000, 20, documentsWith)).toEqual(["onboarding", "initech"]);
  });

  it("keeps every word when the other words match fewer documents than wanted", () => {
    expect(informativeTerms(["task", "onboarding", "initech"], 1000, 41, documentsWith)).toEqual(["task", "onboarding", "initech"]);
  });

  it("keeps every word when all are common, and a single word as it is", () => {
    expect(informativeTerms(["task", "report"], 1000, 5, documentsWith)).toEqual(["task", "report"]);
    expect(informativeTerms(["task"], 1000, 5, documentsWith)).toEqual(["task"]);
    expect(informativeTerms(["zebra", "task"], 1000, 5, documentsWith)).toEqual(["zebra", "task"]);
  });

  it("quotes each word of an FTS5 expression", () => {
    expect(ftsMatch(["near", "or"])).toBe('"near" OR "or"');
    expect(ftsMatch([])).toBeUndefined();
  });
});

describe.each([
  ["SQLiteSearchStore", () => new SQLiteSearchStore({ path: ":memory:" })],
  ["InMemorySearchStore", () => new InMemorySearchStore()],
])("%s keyword search with a word in most documents", (_name, makeStore) => {
  it("returns the same best results with or without that word, scored alike", async () => {
    const store = makeStore();
    const docs = Array.from({ length: 200 }, (_, i) => ({
      id: `d${i}`,
      content: i % 10 === 0 ? `task ${i}: onboarding notes for team ${i}` : `task ${i}: weekly notes for team ${i}`,
    }));
    await store.upsert(docs);
    const withCommon = await store.search("task onboarding", { limit: 3 });
    const rareOnly = await store.search("onboarding", { limit: 3 });
    expect(withCommon.map((r) => r.id)).toEqual(rareOnly.map((r) => r.id));
    expect(withCommon.every((r) => r.content.includes("onboarding"))).toBe(true);
    expect(withCommon[0]?.score).toBe(1);
    // Not enough documents with the rare word for a large limit: the common word still finds the rest.
    const wide = await store.search("task onboarding", { limit: 30 });
    expect(wide.length).toBe(30);
    expect(wide.slice(0, 20).every((r) => r.content.includes("onboarding"))).toBe(true);
    await store.close();
  });

  it("still finds documents holding only the common word when a filter keeps none of the others", async () => {
    const store = makeStore();
    const earlier = Array.from({ length: 150 }, (_, i) => ({
      id: `old${i}`,
      content: i % 3 === 0 ? `Globex summary number ${i}` : `summary of week ${i}`,
      metadata: { runId: "earlier" },
    }));
    const now = [
      { id: "now1", content: "Executive summary: revenue grew", metadata: { runId: "now" } },
      { id: "now2", content: "A summary for the board", metadata: { runId: "now" } },
    ];
    await store.upsert([...earlier, ...now]);
    const found = await store.search("write a summary about Globex", { filter: { runId: "now" }, limit: 2 });
    expect(found.map((r) => r.id).sort()).toEqual(["now1", "now2"]);
    expect(found[0]?.score).toBe(1);
    await store.close();
  });
});

describe("SQLiteSearchStore keyword search over collections sharing one file", () => {
  it("finds a collection's documents that hold only a word common in the whole file", async () => {
    const path = join(process.env.CREWTS_STORAGE_DIR as string, "shared-collections.db");
    const big = new SQLiteSearchStore({ path, collection: "big" });
    const small = new SQLiteSearchStore({ path, collection: "small" });
    await big.upsert(Array.from({ length: 120 }, (_, i) => ({ id: `b${i}`, content: i % 2 === 0 ? `policy refund rules ${i}` : `policy notes ${i}` })));
    await small.upsert([{ id: "s1", content: "Our travel policy in brief" }]);
    expect((await small.search("refund policy", { limit: 1 })).map((r) => r.id)).toEqual(["s1"]);
    // After another connection's writes "refund" is common too: the cached word counts are read again,
    // and "policy" alone (in 121 of 421 documents) now ranks, as FTS5 weighs "refund" at 1e-6.
    await small.upsert(Array.from({ length: 300 }, (_, i) => ({ id: `r${i}`, content: `refund form ${i}` })));
    const ranked = await big.search("refund policy", { limit: 3 });
    expect(ranked).toHaveLength(3);
    expect(ranked.every((r) => r.content.includes("policy"))).toBe(true);
    await big.close();
    await small.close();
  });
});
