import Database from "libsql";
import { describe, expect, it } from "vitest";
import { ftsMatch } from "../../src/knowledge/store/SearchStore.js";
import { ftsStats, matchTerms, rankByBm25 } from "../../src/knowledge/store/bm25.js";
import type { Prepare } from "../../src/storage/SQLiteDatabase.js";

describe("rankByBm25", () => {
  it("scores documents as FTS5's bm25() does, with the index's statistics", () => {
    const db = new Database(":memory:");
    try {
      db.exec("CREATE VIRTUAL TABLE t USING fts5(content, tokenize = 'unicode61')");
      db.exec("CREATE VIRTUAL TABLE t_vocab USING fts5vocab(t, 'row')");
      const words = ["Café", "pricing", "churn", "Acme", "risk", "ÉLAN", "q3", "über", "data_set", "north-west"];
      const docs = Array.from({ length: 300 }, (_, i) => ({
        rowid: i + 1,
        content: Array.from({ length: 3 + (i % 17) }, (_, j) => words[(i * 7 + j * 3 + (j % 2 ? i : 0)) % words.length]).join(i % 3 ? " " : ", "),
      }));
      const insert = db.prepare("INSERT INTO t (rowid, content) VALUES (?, ?)");
      for (const d of docs) insert.run(d.rowid, d.content);
      const prepare: Prepare = (sql) => db.prepare(sql);
      const match = ftsMatch(["cafe", "acme", "elan", "data", "west"]) as string;
      const fts = db.prepare("SELECT rowid, bm25(t) AS rank FROM t WHERE t MATCH ? ORDER BY rank").all(match) as { rowid: number; rank: number }[];
      const stats = ftsStats(prepare, "t");
      expect(stats.rows).toBe(300);
      const documentsWith = (term: string) => (db.prepare("SELECT doc FROM t_vocab WHERE term = ?").get(term) as { doc: number } | undefined)?.doc ?? 0;
      const ours = rankByBm25(docs, matchTerms(match), stats, documentsWith);
      // Same documents, each with FTS5's score (documents of equal score may come in another order).
      expect(ours.map((d) => d.rowid).sort((a, b) => a - b)).toEqual(fts.map((r) => r.rowid).sort((a, b) => a - b));
      const ftsRank = new Map(fts.map((r) => [r.rowid, r.rank]));
      for (const d of ours) expect(d.rank).toBeCloseTo(ftsRank.get(d.rowid) as number, 9);
      ours.forEach((d, i) => expect(d.rank).toBeCloseTo((fts[i] as { rank: number }).rank, 9));
      expect(new Set(ours.map((d) => d.rank.toFixed(6))).size).toBeGreaterThan(10);
    } finally {
      db.close();
    }
  });
});
