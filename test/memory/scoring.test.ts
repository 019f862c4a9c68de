import { afterEach, describe, expect, it } from "vitest";
import { MemoryOptionsError } from "../../src/memory/errors.js";
import { combinedScore, rankItems, recencyOf, resolveScoring, SHORT_TERM_HALF_LIFE_DAYS } from "../../src/memory/scoring.js";
import { ShortTermMemory } from "../../src/memory/ShortTermMemory.js";
import type { MemoryScoring } from "../../src/memory/scoring.js";
import { storageFile } from "./helpers.js";

const DAY = 86_400_000;
const NOW = 1_700_000_000_000;

describe("memory scoring", () => {
  it("halves recency every half-life and weighs the three signals into [0, 1]", () => {
    expect(recencyOf(NOW, NOW, 7)).toBe(1);
    expect(recencyOf(NOW - 7 * DAY, NOW, 7)).toBeCloseTo(0.5, 10);
    expect(recencyOf(NOW - 14 * DAY, NOW, 7)).toBeCloseTo(0.25, 10);
    expect(recencyOf(NOW + DAY, NOW, 7)).toBe(1);
    const scoring = resolveScoring(undefined);
    expect(scoring).toEqual({ weights: { relevance: 1, recency: 0.25, importance: 0.25 }, halfLifeDays: 7 });
    // (1 * 0.8 + 0.25 * 0.5 + 0.25 * 1) / 1.5
    expect(combinedScore({ relevance: 0.8, createdAt: NOW - 7 * DAY, importance: 1 }, scoring, NOW)).toBeCloseTo(1.175 / 1.5, 10);
    expect(combinedScore({ relevance: 1, createdAt: NOW, importance: 1 }, scoring, NOW)).toBe(1);
    expect(resolveScoring(undefined, SHORT_TERM_HALF_LIFE_DAYS).halfLifeDays).toBeCloseTo(1 / 24, 10);
  });

  it("ranks by the configured weights and half-life", () => {
    const items = [
      { id: "old-important", content: "a", metadata: {}, relevance: 0.9, createdAt: NOW - 30 * DAY, importance: 1 },
      { id: "new-plain", content: "b", metadata: {}, relevance: 0.9, createdAt: NOW, importance: 0.2 },
    ];
    const ids = (scoring: MemoryScoring) => rankItems(items, resolveScoring(scoring), 2, { now: NOW }).map((i) => i.id);
    expect(ids({})).toEqual(["new-plain", "old-important"]);
    expect(ids({ weights: { recency: 0 } })).toEqual(["old-important", "new-plain"]);
    // With a half-life of ten years, 30 days barely matter: importance decides.
    expect(ids({ halfLifeDays: 3650 })).toEqual(["old-important", "new-plain"]);
    expect(rankItems(items, resolveScoring({}), 1, { now: NOW })).toHaveLength(1);
  });

  it("rejects negative or all-zero weights and a non-positive half-life with a clear error", () => {
    expect(() => resolveScoring({ weights: { recency: -1 } })).toThrow(MemoryOptionsError);
    expect(() => resolveScoring({ weights: { recency: -1 } })).toThrow("scoring.weights.recency: must be 0 or more");
    expect(() => resolveScoring({ weights: { relevance: 0, recency: 0, importance: 0 } })).toThrow("at least one weight must be positive");
    expect(() => resolveScoring({ halfLifeDays: 0 })).toThrow("scoring.halfLifeDays: must be more than 0");
    expect(() => resolveScoring({ weights: { relevancy: 1 } } as unknown as MemoryScoring)).toThrow(MemoryOptionsError);
    expect(() => new ShortTermMemory({ path: storageFile("never.db"), scoring: { weights: { importance: -0.5 } } })).toThrow(/importance: must be 0 or more/);
  });
});

describe("scoring in a memory", () => {
  const memories: ShortTermMemory[] = [];
  afterEach(async () => {
    for (const memory of memories.splice(0)) await memory.close();
  });

  it("puts the newer of equally relevant items first, unless importance outweighs recency", async () => {
    const path = storageFile("scoring.db");
    const save = async (memory: ShortTermMemory) => {
      await memory.save("launch moved to May alpha", { createdAt: Date.now() - 2 * DAY, importance: 0.9 });
      await memory.save("launch moved to May beta");
    };
    const byRecency = new ShortTermMemory({ path });
    memories.push(byRecency);
    await save(byRecency);
    const items = await byRecency.search("launch moved May");
    expect(items.map((i) => i.content)).toEqual(["launch moved to May beta", "launch moved to May alpha"]);
    expect(items[0]?.relevance).toBeCloseTo(items[1]?.relevance ?? 0, 10);
    expect(items[1]?.importance).toBe(0.9);
    expect(items[0]?.importance).toBe(0.5);

    const byImportance = new ShortTermMemory({ path, scoring: { weights: { recency: 0, importance: 1 } } });
    memories.push(byImportance);
    expect((await byImportance.search("launch moved May")).map((i) => i.content)).toEqual(["launch moved to May alpha", "launch moved to May beta"]);
  });
});
