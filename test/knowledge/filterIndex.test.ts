import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "libsql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SQLiteSearchStore } from "../../src/knowledge/store/SQLiteSearchStore.js";

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "crewts-filter-index-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("SQLiteSearchStore filtered keyword search on a large file", () => {
  it("ranks only the documents the filter keeps, through an index on the filter's key, and finds what the join finds", async () => {
    const path = join(root, "large.db");
    const store = new SQLiteSearchStore({ path });
    try {
      // 2,400 documents in 300 runs; "apples" is in every third, and twice in some, so ranks differ.
      const docs = Array.from({ length: 2400 }, (_, i) => ({
        id: `d${i}`,
        content: `${i % 3 === 0 ? (Math.floor(i / 300) % 2 === 0 ? "apples apples" : "apples") : "pears"} note ${i} for the quarterly review of o'brien`,
        metadata: { run: `r${i % 300}`, "it's": i % 2 === 0 },
      }));
      await store.upsert(docs);
      const found = await store.search("apples", { limit: 5, filter: { run: "r9" } });
      const expected = docs.filter((d) => d.metadata.run === "r9" && d.content.includes("apples"));
      expect(expected.length).toBe(8);
      expect(found).toHaveLength(5);
      for (const r of found) expect(expected.map((d) => d.id)).toContain(r.id);
      // The four documents holding the word twice rank first.
      expect(found.slice(0, 4).map((r) => r.id).sort()).toEqual(expected.filter((d) => d.content.startsWith("apples apples")).map((d) => d.id).sort());
      for (let i = 1; i < found.length; i++) expect((found[i - 1] as { score: number }).score).toBeGreaterThanOrEqual((found[i] as { score: number }).score);
      // A key with a single quote, and a second filter key checked on the kept rows.
      const quoted = await store.search("apples", { limit: 50, filter: { "it's": true, run: "r12" } });
      expect(quoted.map((r) => r.id).sort()).toEqual(docs.filter((d) => d.metadata.run === "r12" && d.metadata["it's"] && d.content.includes("apples")).map((d) => d.id).sort());
      // A filter keeping nothing finds nothing.
      expect(await store.search("apples", { filter: { run: "none" } })).toEqual([]);
    } finally {
      await store.close();
    }
    const db = new Database(path);
    const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'documents_meta_%'").all() as { name: string }[];
    db.close();
    expect(indexes.length).toBe(2);
  });
});
