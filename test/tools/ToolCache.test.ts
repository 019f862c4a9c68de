import { describe, expect, it } from "vitest";
import { InMemoryToolCache } from "../../src/tools/index.js";

describe("InMemoryToolCache", () => {
  it("matches arguments whatever their key order, at every depth", () => {
    const cache = new InMemoryToolCache();
    cache.set("search", { q: "a", opts: { x: 1, y: [1, { b: 2, a: 1 }] } }, "out");
    expect(cache.get("search", { opts: { y: [1, { a: 1, b: 2 }], x: 1 }, q: "a" })).toBe("out");
    expect(cache.get("search", { q: "b", opts: { x: 1, y: [1, { a: 1, b: 2 }] } })).toBeUndefined();
    expect(cache.get("other", { q: "a", opts: { x: 1, y: [1, { a: 1, b: 2 }] } })).toBeUndefined();
    expect(cache.size).toBe(1);
    cache.clear();
    expect(cache.size).toBe(0);
  });
});
