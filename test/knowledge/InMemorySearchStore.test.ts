import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Embedder } from "../../src/knowledge/embedders/Embedder.js";
import { InMemorySearchStore, tokenize } from "../../src/knowledge/store/InMemorySearchStore.js";
import { SearchStoreError } from "../../src/knowledge/store/SearchStore.js";
import { startMockOpenAIServer, type MockOpenAIServer } from "../../src/testing/index.js";
import { describeSearchStore, recordingMockEmbedder } from "./searchStoreConformance.js";

let server: MockOpenAIServer;
beforeAll(async () => {
  server = await startMockOpenAIServer();
});
afterAll(async () => {
  await server.close();
});

/** The mock server's embeddings over real HTTP, recording each call's texts. */
const mockEmbedder = (): Embedder & { calls: string[][] } => recordingMockEmbedder(server.url);

describeSearchStore("InMemorySearchStore", async (embedder) => ({ store: new InMemorySearchStore(embedder ? { embedder } : {}) }), { embedder: mockEmbedder });

describe("InMemorySearchStore", () => {
  it("tokenizes as FTS5's unicode61 tokenizer: letters and digits, lower-cased, without diacritics", () => {
    expect(tokenize("Crème brûlée, v2_final! ÉTÉ 2024")).toEqual(["creme", "brulee", "v2", "final", "ete", "2024"]);
  });

  it("refuses vector search without an embedder", async () => {
    await expect(new InMemorySearchStore().search("x", { mode: "vector" })).rejects.toBeInstanceOf(SearchStoreError);
  });

  it("filters before ranking vectors, so a filtered search still fills its limit", async () => {
    const store = new InMemorySearchStore({ embedder: mockEmbedder() });
    await store.upsert(Array.from({ length: 30 }, (_, i) => ({ id: String(i), content: `note ${i} about apples`, metadata: { even: i % 2 === 0 } })));
    const results = await store.search("apples", { mode: "vector", limit: 10, filter: { even: false } });
    expect(results).toHaveLength(10);
    expect(results.every((r) => r.metadata.even === false)).toBe(true);
  });

  it("leaves the store unchanged when embedding fails", async () => {
    const failing: Embedder = { id: "failing", dimensions: 2, embed: () => Promise.reject(new Error("embedder down")) };
    const store = new InMemorySearchStore({ embedder: failing });
    await expect(store.upsert([{ id: "a", content: "apples" }])).rejects.toThrow("embedder down");
    expect(await store.count()).toBe(0);
    expect(await store.search("apples", { mode: "keyword" })).toEqual([]);
  });
});
