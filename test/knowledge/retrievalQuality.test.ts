import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AISDKEmbedder } from "../../src/knowledge/embedders/AISDKEmbedder.js";
import { InMemorySearchStore } from "../../src/knowledge/store/InMemorySearchStore.js";
import type { SearchStore } from "../../src/knowledge/store/SearchStore.js";
import { SQLiteSearchStore } from "../../src/knowledge/store/SQLiteSearchStore.js";
import { MOCK_EMBEDDING_DIMENSIONS, startMockOpenAIServer, type MockOpenAIServer } from "../../src/testing/index.js";
import { indexCorpus, RECALL_EMBEDDING_DIMENSIONS, RECALL_FLOORS as FLOORS, recallAt, retrievalCorpus, retrievalQueries } from "../fixtures/retrieval/retrievalCorpus.js";

let server: MockOpenAIServer;
beforeAll(async () => {
  server = await startMockOpenAIServer();
});
afterAll(async () => {
  await server.close();
});

const backends: [string, (embedder: AISDKEmbedder) => SearchStore][] = [
  ["SQLiteSearchStore", (embedder) => new SQLiteSearchStore({ path: ":memory:", embedder })],
  ["InMemorySearchStore", (embedder) => new InMemorySearchStore({ embedder })],
];

describe("retrieval quality on the labelled corpus", () => {
  it("has enough documents and queries, every label naming a document", () => {
    expect(retrievalCorpus.length).toBeGreaterThanOrEqual(60);
    expect(retrievalQueries.length).toBeGreaterThanOrEqual(24);
    expect(RECALL_EMBEDDING_DIMENSIONS).toBe(MOCK_EMBEDDING_DIMENSIONS);
    const ids = new Set(retrievalCorpus.map((d) => d.id));
    expect(ids.size).toBe(retrievalCorpus.length);
    for (const q of retrievalQueries) for (const id of q.relevant) expect(ids).toContain(id);
  });

  for (const [name, open] of backends) {
    it(`${name}: recall@5 of keyword, vector and hybrid search stays above its floor`, async () => {
      // The mock server's bag-of-words embeddings over real HTTP.
      const store = open(new AISDKEmbedder({ provider: "openai-compatible", model: "mock-embed", baseURL: server.url }));
      try {
        await indexCorpus(store);
        const recall = { keyword: await recallAt(store, "keyword"), vector: await recallAt(store, "vector"), hybrid: await recallAt(store, "hybrid") };
        expect(recall.keyword).toBeGreaterThanOrEqual(FLOORS.keyword);
        expect(recall.vector).toBeGreaterThanOrEqual(FLOORS.vector);
        expect(recall.hybrid).toBeGreaterThanOrEqual(FLOORS.hybrid);
        // Fusion must not do worse than the better of its two rankings by more than one query.
        expect(recall.hybrid).toBeGreaterThanOrEqual(Math.max(recall.keyword, recall.vector) - 1 / retrievalQueries.length);
      } finally {
        await store.close();
      }
    });
  }
});
