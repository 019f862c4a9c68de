import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FunctionEmbedder } from "../../src/knowledge/embedders/FunctionEmbedder.js";
import { SQLiteSearchStore } from "../../src/knowledge/store/SQLiteSearchStore.js";
import { VectorScanner } from "../../src/knowledge/store/vectorScan.js";

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "crewts-vectors-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const randomVector = (next: () => number, dims: number) => Array.from({ length: dims }, () => next() * 2 - 1);
const dot = (a: readonly number[], b: readonly number[]) => a.reduce((sum, x, i) => sum + x * (b[i] as number), 0);
const unit = (v: readonly number[]) => {
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
};

describe("VectorScanner", () => {
  it("scores every vector within 2% of the exact dot product, and keeps slots dense on removal", () => {
    const next = random(7);
    // 37 dims: padded to 48, so the padding must not leak into scores.
    const scanner = new VectorScanner(37);
    const vectors = Array.from({ length: 300 }, () => unit(randomVector(next, 37)));
    vectors.forEach((v, i) => scanner.set(i, v));
    const query = unit(randomVector(next, 37));
    const scores = scanner.scores(query);
    vectors.forEach((v, i) => expect(Math.abs((scores[i] as number) - dot(v, query))).toBeLessThan(0.02));

    scanner.removeMovingLast(5);
    expect(scanner.size).toBe(299);
    const after = scanner.scores(query);
    expect(Math.abs((after[5] as number) - dot(vectors[299] as number[], query))).toBeLessThan(0.02);
    scanner.set(5, vectors[5] as number[]);
    expect(Math.abs((scanner.scores(query)[5] as number) - dot(vectors[5] as number[], query))).toBeLessThan(0.02);
    scanner.clear();
    expect(scanner.size).toBe(0);
  });
});

describe("SQLiteSearchStore vector search", () => {
  const dims = 24;
  const vectorsById = new Map<string, number[]>();
  const embedder = new FunctionEmbedder({ id: "table", dimensions: dims, embed: (texts) => texts.map((t) => vectorsById.get(t) ?? new Array<number>(dims).fill(0)) });

  it("returns the exact nearest documents (brute force agrees), with filters, and sees writes of other stores on the file", async () => {
    const next = random(11);
    const docs = Array.from({ length: 600 }, (_, i) => {
      const content = `doc ${i}`;
      vectorsById.set(content, randomVector(next, dims));
      return { id: `d${i}`, content, metadata: { half: i % 2 } };
    });
    const path = join(root, "exact.db");
    const store = new SQLiteSearchStore({ path, embedder });
    const other = new SQLiteSearchStore({ path, embedder });
    try {
      await store.upsert(docs);
      const exactTop = (query: number[], k: number, keep: (i: number) => boolean = () => true) =>
        docs
          .map((d, i) => ({ id: d.id, i, cos: dot(unit(vectorsById.get(d.content) as number[]), unit(query)) }))
          .filter((d) => keep(d.i))
          .sort((a, b) => b.cos - a.cos)
          .slice(0, k);
      for (let q = 0; q < 10; q++) {
        const query = randomVector(next, dims);
        vectorsById.set(`query ${q}`, query);
        const found = await store.search(`query ${q}`, { mode: "vector", limit: 10 });
        const exact = exactTop(query, 10);
        expect(found.map((r) => r.id)).toEqual(exact.map((e) => e.id));
        found.forEach((r, i) => expect(r.score).toBeCloseTo(Math.max(0, (exact[i] as { cos: number }).cos), 5));
        const odd = await store.search(`query ${q}`, { mode: "vector", limit: 5, filter: { half: 1 } });
        expect(odd.map((r) => r.id)).toEqual(exactTop(query, 5, (i) => i % 2 === 1).map((e) => e.id));
      }

      // Another store on the file writes a vector equal to a query: the first store must find it next.
      const query = randomVector(next, dims);
      vectorsById.set("probe", query);
      vectorsById.set("new doc", query);
      await other.upsert([{ id: "new", content: "new doc" }]);
      expect((await store.search("probe", { mode: "vector", limit: 1 }))[0]?.id).toBe("new");
      // Its own deletes and replacements show at once.
      await store.delete(["new"]);
      expect((await store.search("probe", { mode: "vector", limit: 1 }))[0]?.id).not.toBe("new");
      vectorsById.set("replaced", query);
      await store.upsert([{ id: "d3", content: "replaced" }]);
      expect((await store.search("probe", { mode: "vector", limit: 1 }))[0]?.id).toBe("d3");
      await store.reset();
      expect(await store.search("probe", { mode: "vector" })).toEqual([]);
    } finally {
      await store.close();
      await other.close();
    }
  });
});
