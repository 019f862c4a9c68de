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
});
