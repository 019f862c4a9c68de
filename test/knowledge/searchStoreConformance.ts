import { afterEach, describe, expect, it } from "vitest";
import { AISDKEmbedder } from "../../src/knowledge/embedders/AISDKEmbedder.js";
import type { Embedder, EmbedOptions } from "../../src/knowledge/embedders/Embedder.js";
import type { SearchDocument, SearchStore } from "../../src/knowledge/store/SearchStore.js";

/** The mock server's embeddings (at `baseURL`) over real HTTP, recording each call's texts. */
export function recordingMockEmbedder(baseURL: string): Embedder & { calls: string[][] } {
  const inner = new AISDKEmbedder({ provider: "openai-compatible", model: "mock-embed", baseURL });
  const calls: string[][] = [];
  return {
    id: inner.id,
    get dimensions() {
      return inner.dimensions;
    },
    calls,
    embed(texts: readonly string[], options?: EmbedOptions) {
      calls.push([...texts]);
      return inner.embed(texts, options);
    },
  };
}

/** Builds a store for one test; `embedder` is given when the suite runs with vectors. */
export type SearchStoreFactory = (embedder: Embedder | undefined) => Promise<{ store: SearchStore; cleanup?: () => Promise<void> }>;

const DOCS: SearchDocument[] = [
  { id: "cats", content: "Cats are small domestic felines that purr and chase mice.", metadata: { topic: "animals", year: 2020 } },
  { id: "dogs", content: "Dogs are loyal domestic animals that bark and fetch sticks.", metadata: { topic: "animals", year: 2021 } },
  { id: "rust", content: "Rust is a systems programming language focused on memory safety.", metadata: { topic: "code", year: 2021 } },
  { id: "ts", content: "TypeScript adds static types to JavaScript programming.", metadata: { topic: "code", year: 2022, draft: true } },
];

/**
 * The behaviour every SearchStore backend must have. `embedder` (optional) enables the vector and
 * hybrid cases; pass one whose vectors make texts that share words close (the mock server's).
 */
export function describeSearchStore(name: string, factory: SearchStoreFactory, options: { embedder?: () => Embedder & { calls: string[][] } } = {}): void {
  describe(`SearchStore conformance: ${name}`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0)) await cleanup();
    });
    const open = async (embedder?: Embedder) => {
      const { store, cleanup } = await factory(embedder);
      cleanups.push(async () => {
        await store.close();
        await cleanup?.();
      });
      return store;
    };

    it("finds documents by keyword, best first, with scores in [0, 1]", async () => {
      const store = await open();
      expect(await store.upsert(DOCS)).toEqual({ added: 4, updated: 0, unchanged: 0, embedded: 0 });
      expect(await store.count()).toBe(4);
      const results = await store.search("which language has memory safety?", { mode: "keyword" });
      expect(results[0]?.id).toBe("rust");
      expect(results[0]?.metadata).toEqual({ topic: "code", year: 2021 });
      for (const r of results) {
        expect(r.score).toBeGreaterThan(0);
        expect(r.score).toBeLessThanOrEqual(1);
      }
      expect(await store.search("   ?!  ")).toEqual([]);
      // Words FTS5 would read as syntax are searched as words.
      expect((await store.search('cats AND "NEAR" OR (mice'))[0]?.id).toBe("cats");
    });

    it("gets documents by id, in the order asked, leaving out unknown ids", async () => {
      const store = await open();
      await store.upsert(DOCS);
      expect(await store.get(["ts", "nope", "cats"])).toEqual([
        { id: "ts", content: DOCS[3]?.content, metadata: { topic: "code", year: 2022, draft: true } },
        { id: "cats", content: DOCS[0]?.content, metadata: { topic: "animals", year: 2020 } },
      ]);
      await store.upsert([{ id: "cats", content: "Cats sleep most of the day." }]);
      expect(await store.get(["cats"])).toEqual([{ id: "cats", content: "Cats sleep most of the day.", metadata: {} }]);
      await store.delete(["cats"]);
      expect(await store.get(["cats"])).toEqual([]);
    });

    it("applies limits, metadata filters and score thresholds", async () => {
      const store = await open();
      await store.upsert(DOCS);
      expect(await store.search("domestic programming", { limit: 1 })).toHaveLength(1);
      const animals = await store.search("domestic programming", { filter: { topic: "animals" } });
      expect(animals.map((r) => r.id).sort()).toEqual(["cats", "dogs"]);
      expect((await store.search("programming", { filter: { topic: "code", year: 2022 } })).map((r) => r.id)).toEqual(["ts"]);
      expect((await store.search("programming", { filter: { draft: true } })).map((r) => r.id)).toEqual(["ts"]);
      expect((await store.search("programming", { filter: { draft: null } })).map((r) => r.id)).toEqual(["rust"]);
      const all = await store.search("domestic programming");
      const threshold = all[0]?.score ?? 1;
      expect((await store.search("domestic programming", { scoreThreshold: threshold })).every((r) => r.score >= threshold)).toBe(true);
      expect(await store.search("domestic programming", { scoreThreshold: 1.01 })).toEqual([]);
    });

    it("replaces documents by id, deletes and resets", async () => {
      const store = await open();
      await store.upsert(DOCS);
      expect(await store.upsert([DOCS[0] as (typeof DOCS)[number]])).toMatchObject({ unchanged: 1, added: 0, updated: 0 });
      expect(await store.upsert([{ id: "cats", content: "Parrots talk.", metadata: { topic: "birds" } }])).toMatchObject({ updated: 1 });
      expect(await store.search("purr")).toEqual([]);
      expect((await store.search("parrots"))[0]).toMatchObject({ id: "cats", metadata: { topic: "birds" } });
      await store.delete(["cats", "unknown"]);
      expect(await store.count()).toBe(3);
      expect(await store.search("parrots")).toEqual([]);
      await store.reset();
      expect(await store.count()).toBe(0);
      expect(await store.search("programming")).toEqual([]);
    });

    it("lists ids, all or by metadata, in insertion order", async () => {
      const store = await open();
      await store.upsert(DOCS);
      expect(await store.ids()).toEqual(["cats", "dogs", "rust", "ts"]);
      expect(await store.ids({ topic: "code" })).toEqual(["rust", "ts"]);
      expect(await store.ids({ topic: "code", draft: null })).toEqual(["rust"]);
      await store.delete(["dogs"]);
      expect(await store.ids({ topic: "animals" })).toEqual(["cats"]);
    });

    const makeEmbedder = options.embedder;
    if (makeEmbedder === undefined) return;

    it("searches by meaning (vector) and by both (hybrid)", async () => {
      const store = await open(makeEmbedder());
      await store.upsert(DOCS);
      expect((await store.search("static types for JavaScript", { mode: "vector" }))[0]?.id).toBe("ts");
      const hybrid = await store.search("loyal dogs bark", { mode: "hybrid" });
      expect(hybrid[0]?.id).toBe("dogs");
      expect(hybrid[0]?.score).toBeLessThanOrEqual(1);
      expect((await store.search("memory safety", { mode: "vector", filter: { topic: "animals" } })).every((r) => r.metadata.topic === "animals")).toBe(true);
    });

    it("never embeds unchanged content twice", async () => {
      const embedder = makeEmbedder();
      const store = await open(embedder);
      expect(await store.upsert(DOCS)).toMatchObject({ added: 4, embedded: 4 });
      const calls = embedder.calls.length;
      expect(await store.upsert(DOCS)).toMatchObject({ unchanged: 4, embedded: 0 });
      // Same text under a new id, and metadata-only changes, reuse the stored vector.
      expect(await store.upsert([{ id: "cats-copy", content: DOCS[0]?.content ?? "" }, { id: "dogs", content: DOCS[1]?.content ?? "", metadata: { topic: "pets" } }])).toMatchObject({
        added: 1,
        updated: 1,
        embedded: 0,
      });
      await store.reset();
      expect(await store.upsert(DOCS)).toMatchObject({ added: 4, embedded: 0 });
      expect(embedder.calls.length).toBe(calls);
      expect((await store.search("purr mice", { mode: "vector" }))[0]?.id).toBe("cats");
    });
  });
}
