import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Embedder } from "../../src/knowledge/embedders/Embedder.js";
import { SearchStoreError } from "../../src/knowledge/store/SearchStore.js";
import { SQLiteSearchStore } from "../../src/knowledge/store/SQLiteSearchStore.js";
import { startMockOpenAIServer, type MockOpenAIServer } from "../../src/testing/index.js";
import { describeSearchStore, recordingMockEmbedder } from "./searchStoreConformance.js";

let server: MockOpenAIServer;
let root: string;
beforeAll(async () => {
  server = await startMockOpenAIServer();
  root = await mkdtemp(join(tmpdir(), "crewts-search-"));
});
afterAll(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

/** The mock server's embeddings over real HTTP, recording each call's texts. */
const mockEmbedder = (): Embedder & { calls: string[][] } => recordingMockEmbedder(server.url);

let files = 0;
describeSearchStore("SQLiteSearchStore (:memory:)", async (embedder) => ({ store: new SQLiteSearchStore({ path: ":memory:", ...(embedder ? { embedder } : {}) }) }), {
  embedder: mockEmbedder,
});
describeSearchStore("SQLiteSearchStore (file)", async (embedder) => ({ store: new SQLiteSearchStore({ path: join(root, `s${files++}.db`), ...(embedder ? { embedder } : {}) }) }), {
  embedder: mockEmbedder,
});

describe("SQLiteSearchStore", () => {
  it("keeps collections on one file apart", async () => {
    const path = join(root, "shared.db");
    const a = new SQLiteSearchStore({ path, collection: "a" });
    const b = new SQLiteSearchStore({ path, collection: "b" });
    try {
      await a.upsert([{ id: "1", content: "apples" }]);
      await b.upsert([{ id: "1", content: "bananas" }]);
      expect((await a.search("apples bananas")).map((r) => r.content)).toEqual(["apples"]);
      await b.reset();
      expect(await a.count()).toBe(1);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("finds keyword matches that filters leave below many better-ranked others", async () => {
    const path = join(root, "overfetch.db");
    const other = new SQLiteSearchStore({ path, collection: "other" });
    const store = new SQLiteSearchStore({ path });
    try {
      // 40 strong matches in another collection and 40 in this one without the filter's value.
      await other.upsert(Array.from({ length: 40 }, (_, i) => ({ id: `o${i}`, content: "comet comet comet" })));
      await store.upsert([
        ...Array.from({ length: 40 }, (_, i) => ({ id: `n${i}`, content: "comet comet tail", metadata: { kept: false } })),
        { id: "weak", content: "a long note that mentions a comet only once among many other words", metadata: { kept: true } },
      ]);
      expect((await store.search("comet", { limit: 3, filter: { kept: true } })).map((r) => r.id)).toEqual(["weak"]);
      expect(await store.search("comet", { limit: 3 })).toHaveLength(3);
    } finally {
      await store.close();
      await other.close();
    }
  });

  it("refuses vector search without an embedder", async () => {
    const store = new SQLiteSearchStore({ path: ":memory:" });
    await expect(store.search("x", { mode: "vector" })).rejects.toBeInstanceOf(SearchStoreError);
    await store.close();
  });
});
