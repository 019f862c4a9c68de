import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "libsql";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ftsTokens } from "../../src/knowledge/store/bm25.js";
import { FtsMirror, MAX_MIRRORED_TOKENS, uncertainTerms } from "../../src/knowledge/store/ftsMirror.js";
import { SQLiteSearchStore } from "../../src/knowledge/store/SQLiteSearchStore.js";
import { LongTermMemory } from "../../src/memory/LongTermMemory.js";
import { sweepIdleConnections } from "../../src/storage/connectionPool.js";
import { SQLiteDatabase } from "../../src/storage/SQLiteDatabase.js";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "crewts-fts-mirror-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const WORDS = ["pricing", "churn", "acme", "risk", "latency", "globex", "q3", "summary", "review", "onboarding", "billing", "security"];
/** Deterministic texts of 3 to 19 words, some words repeated, so scores differ by word count and length. */
const texts = (count: number, seed = 0): string[] =>
  Array.from({ length: count }, (_, i) => Array.from({ length: 3 + ((i + seed) % 17) }, (_, j) => WORDS[((i + seed) * 7 + j * 3 + (j % 2 ? i : 0)) % WORDS.length]).join(i % 3 ? " " : ", "));

/** The store's data read through a second connection, ranked by FTS5 alone: ids and scores relative to the best, ties by rowid. */
function fts5Results(file: string, word: string, limit: number): { id: string; score: number }[] {
  const db = new Database(file);
  try {
    const rows = db
      .prepare("SELECT d.id, bm25(documents_fts) AS rank FROM documents_fts JOIN documents d ON d.rowid = documents_fts.rowid WHERE documents_fts MATCH ? ORDER BY rank, d.rowid LIMIT ?")
      .all(`"${word}"`, limit) as { id: string; rank: number }[];
    const best = rows[0]?.rank ?? -1;
    return rows.map((r) => ({ id: r.id, score: r.rank / best }));
  } finally {
    db.close();
  }
}

/** The mirror shared by every handle on `file` (a handle on the same file gets the same pooled connection). */
async function mirrorOf(file: string): Promise<{ mirror: FtsMirror; handle: SQLiteDatabase }> {
  const handle = new SQLiteDatabase(() => file, []);
  const mirror = await handle.use(() => FtsMirror.of(handle, "documents_fts", "content"));
  return { mirror, handle };
}

async function expectSameAsFts5(store: SQLiteSearchStore, file: string, word: string): Promise<void> {
  const ours = (await store.search(word, { limit: 6 })).map((r) => ({ id: r.id, score: r.score }));
  const fts5 = fts5Results(file, word, 6);
  expect(ours.map((r) => r.id)).toEqual(fts5.map((r) => r.id));
  ours.forEach((r, i) => expect(r.score).toBeCloseTo((fts5[i] as { score: number }).score, 9));
  expect(ours.length).toBeGreaterThan(0);
}

describe("FtsMirror", () => {
  it("ranks matches as FTS5's bm25() does, with the index's statistics", async () => {
    const file = join(root, "rank.db");
    const db = new SQLiteDatabase(() => file, ["CREATE VIRTUAL TABLE IF NOT EXISTS t USING fts5(content, tokenize = 'unicode61')"]);
    const docs = texts(400);
    await db.transaction((prepare) => docs.forEach((content, i) => prepare("INSERT INTO t (rowid, content) VALUES (?, ?)").run(i + 1, content)));
    const terms = ["acme", "latency", "q3"];
    const { ours, fts } = await db.use((prepare) => {
      const current = FtsMirror.of(db, "t", "content").current(prepare);
      if (!current) throw new Error("an ASCII index of 400 rows is mirrored");
      const fts = prepare('SELECT rowid, bm25(t) AS rank FROM t WHERE t MATCH \'"acme" OR "latency" OR "q3"\' ORDER BY rank').all() as { rowid: number; rank: number }[];
      return { ours: current.mirror.rank(terms, current.stats, 25), fts };
    });
    await db.close();
    if (!ours) throw new Error("ASCII terms are ranked by the mirror");
    expect(ours.matches).toBe(fts.length);
    // FTS5 leaves the order of equal scores open; the mirror takes them by rowid.
    const expected = [...fts].sort((a, b) => (Math.abs(a.rank - b.rank) < 1e-12 ? a.rowid - b.rowid : a.rank - b.rank)).slice(0, 25);
    expect(ours.best.map((m) => m.rowid)).toEqual(expected.map((r) => r.rowid));
    ours.best.forEach((m, i) => expect(m.rank).toBeCloseTo((expected[i] as { rank: number }).rank, 9));
    expect(new Set(ours.best.map((m) => m.rank.toFixed(6))).size).toBeGreaterThan(3);
  });

  it("follows a store's upserts and deletes without reading the index again, and equals FTS5 after each", async () => {
    const file = join(root, "store.db");
    const store = new SQLiteSearchStore({ path: file, collection: "c" });
    await store.upsert(texts(300).map((content, i) => ({ id: `d${i}`, content })));
    await expectSameAsFts5(store, file, "latency");
    const { mirror, handle } = await mirrorOf(file);
    expect(mirror.loads).toBe(1);

    await store.upsert(texts(40, 5).map((content, i) => ({ id: `d${i}`, content: `${content} latency latency` })));
    await expectSameAsFts5(store, file, "latency");
    await store.upsert([{ id: "new", content: "latency latency latency" }]);
    await expectSameAsFts5(store, file, "latency");
    await store.delete(["new", "d1", "d2"]);
    await expectSameAsFts5(store, file, "latency");
    await expectSameAsFts5(store, file, "churn");
    expect(mirror.loads).toBe(1);

    await store.reset();
    expect(await store.search("latency")).toEqual([]);
    await store.upsert([{ id: "back", content: "latency after the reset" }]);
    expect((await store.search("latency")).map((r) => r.id)).toEqual(["back"]);
    expect(mirror.loads).toBe(1);
    await handle.close();
    await store.close();
  });

  it("reads the index again after another connection wrote to the file", async () => {
    const file = join(root, "other.db");
    const store = new SQLiteSearchStore({ path: file, collection: "c" });
    await store.upsert(texts(200).map((content, i) => ({ id: `d${i}`, content })));
    await expectSameAsFts5(store, file, "billing");
    const { mirror, handle } = await mirrorOf(file);
    const loads = mirror.loads;
    // Another process's write: a second connection adds a document and its FTS row.
    const other = new Database(file);
    const { lastInsertRowid } = other.prepare("INSERT INTO documents (collection, id, content, metadata, content_hash) VALUES ('c', 'outside', 'billing billing billing', '{}', 'x')").run();
    other.prepare("INSERT INTO documents_fts (rowid, content) VALUES (?, 'billing billing billing')").run(lastInsertRowid);
    other.close();
    const found = await store.search("billing", { limit: 3 });
    expect(found[0]?.id).toBe("outside");
    await expectSameAsFts5(store, file, "billing");
    expect(mirror.loads).toBe(loads + 1);
    await handle.close();
    await store.close();
  });

  it("is kept when the idle file is closed and opened again, unless the index changed meanwhile", async () => {
    const file = join(root, "idle.db");
    const store = new SQLiteSearchStore({ path: file, collection: "c" });
    await store.upsert(texts(200).map((content, i) => ({ id: `d${i}`, content })));
    await expectSameAsFts5(store, file, "security");
    const { mirror, handle } = await mirrorOf(file);
    const closeIdle = () => {
      sweepIdleConnections();
      return sweepIdleConnections();
    };
    expect(closeIdle()).toBeGreaterThan(0);
    // Written after the last search, before the close: the mirror noted the index as it was then.
    await store.upsert([{ id: "after", content: "security security review" }]);
    expect(closeIdle()).toBeGreaterThan(0);
    await expectSameAsFts5(store, file, "security");
    await store.upsert([{ id: "tracked", content: "security after reopening" }]);
    await expectSameAsFts5(store, file, "security");
    expect(mirror.loads).toBe(1);

    expect(closeIdle()).toBeGreaterThan(0);
    const other = new Database(file);
    const { lastInsertRowid } = other.prepare("INSERT INTO documents (collection, id, content, metadata, content_hash) VALUES ('c', 'outside', 'security security security', '{}', 'x')").run();
    other.prepare("INSERT INTO documents_fts (rowid, content) VALUES (?, 'security security security')").run(lastInsertRowid);
    other.close();
    expect((await store.search("security", { limit: 1 }))[0]?.id).toBe("outside");
    await expectSameAsFts5(store, file, "security");
    expect(mirror.loads).toBe(2);
    await handle.close();
    await store.close();
  });

  it("is read again after a transaction that applied changes to it rolled back", async () => {
    const file = join(root, "rollback.db");
    const store = new SQLiteSearchStore({ path: file, collection: "c" });
    await store.upsert(texts(100).map((content, i) => ({ id: `d${i}`, content })));
    await expectSameAsFts5(store, file, "pricing");
    const { mirror, handle } = await mirrorOf(file);
    const failed = handle.transaction((prepare) => {
      FtsMirror.of(handle, "documents_fts", "content").tracking(prepare)?.add(100_000, "ghost ghost");
      throw new Error("the write failed");
    });
    await expect(failed).rejects.toThrow("the write failed");
    // The store's next commit must not make the rolled-back change look current.
    await store.upsert([{ id: "later", content: "pricing later" }]);
    expect(await store.search("ghost")).toEqual([]);
    await expectSameAsFts5(store, file, "pricing");
    expect(mirror.loads).toBe(2);
    await handle.close();
    await store.close();
  });

  it("leaves to FTS5 the words it may count otherwise, and indexes over MAX_MIRRORED_TOKENS", async () => {
    const file = join(root, "unicode.db");
    const store = new SQLiteSearchStore({ path: file, collection: "c" });
    // FTS5 keeps the diacritic of "ǖ" where ftsTokens folds it to "u": "uber" is uncertain, "report" is not.
    await store.upsert([...texts(50).map((content, i) => ({ id: `d${i}`, content: `${content} report` })), { id: "u", content: "ǖber report uber" }]);
    await expectSameAsFts5(store, file, "uber");
    await expectSameAsFts5(store, file, "report");
    const ranked = await store.search("uber");
    expect(ranked.map((r) => r.id)).toEqual(["u"]);
    const { mirror, handle } = await mirrorOf(file);
    const checked = await handle.use((prepare) => {
      const current = mirror.current(prepare);
      return current && { uber: current.mirror.rank(["uber"], current.stats, 5), report: current.mirror.rank(["report"], current.stats, 5) };
    });
    expect(checked?.uber).toBeUndefined();
    expect(checked?.report?.matches).toBe(51);

    await store.upsert([{ id: "huge", content: "w ".repeat(MAX_MIRRORED_TOKENS + 1) }]);
    expect(await handle.use((prepare) => mirror.current(prepare))).toBeUndefined();
    await expectSameAsFts5(store, file, "report");
    await handle.close();
    await store.close();
  });

  it("leaves to FTS5 an index with rowids far above its row count", async () => {
    const file = join(root, "sparse.db");
    const store = new SQLiteSearchStore({ path: file, collection: "c" });
    await store.upsert(texts(50).map((content, i) => ({ id: `d${i}`, content })));
    const other = new Database(file);
    other.prepare("INSERT INTO documents (rowid, collection, id, content, metadata, content_hash) VALUES (?, 'c', 'far', 'risk risk risk', '{}', 'x')").run(2 ** 25);
    other.prepare("INSERT INTO documents_fts (rowid, content) VALUES (?, 'risk risk risk')").run(2 ** 25);
    other.close();
    await expectSameAsFts5(store, file, "risk");
    expect((await store.search("risk", { limit: 1 }))[0]?.id).toBe("far");
    const { mirror, handle } = await mirrorOf(file);
    expect(await handle.use((prepare) => mirror.current(prepare))).toBeUndefined();
    await handle.close();
    await store.close();
  });

  it("uncertainTerms names every ASCII word whose count ftsTokens may get wrong", () => {
    const db = new Database(":memory:");
    try {
      db.exec("CREATE VIRTUAL TABLE t USING fts5(content, tokenize = 'unicode61')");
      db.exec("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')");
      const pool = ["a", "b", "x", "1", " ", " ", " ", " pricing ", " q3 ", " risk ", "ab", "b1", ",", "_", "'", "-", "é", "e\u0301", "\u0301", "\u0308", "ǖ", "ß", "İ", "ﬁ", "²", "½", "·", "Ω", "ø", "ł", "\u200b", "\u00a0", "ｱ", "中", "🙂", "Å", "ĳ", "ǅ", "ᾈ", "\u05d0", "\u0915\u094d", "\ue000", "Ⅻ", "ŉ"];
      let seed = 12345;
      const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
      const count = (words: string[]) => words.reduce((m, w) => m.set(w, (m.get(w) ?? 0) + 1), new Map<string, number>());
      let checked = 0;
      for (let n = 0; n < 2000; n++) {
        let text = "";
        for (let i = 0; i < 2 + (n % 12); i++) text += pool[Math.floor(next() / 65536) % pool.length];
        db.exec("DELETE FROM t");
        db.prepare("INSERT INTO t (rowid, content) VALUES (1, ?)").run(text);
        const fts = count((db.prepare("SELECT term FROM v").all() as { term: string }[]).map((r) => r.term));
        const ours = count(ftsTokens(text));
        const uncertain = new Set(uncertainTerms(text));
        for (const term of new Set([...fts.keys(), ...ours.keys()])) {
          if (!/^\p{ASCII}+$/u.test(term) || uncertain.has(term)) continue;
          expect({ text, term, count: ours.get(term) ?? 0 }).toEqual({ text, term, count: fts.get(term) ?? 0 });
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(1000);
    } finally {
      db.close();
    }
  });
});

describe("long-term memory's keyword ranking", () => {
  it("finds what is saved after a search and after a reset", async () => {
    const memory = new LongTermMemory({ path: join(root, "long.db") });
    for (let i = 0; i < 60; i++) await memory.saveEvaluation({ taskDescription: `Research ${WORDS[i % WORDS.length]} for client ${i}`, agentRole: "Analyst", quality: 5, suggestions: [`Lesson ${i}`] });
    expect((await memory.search("research latency", { limit: 2 })).length).toBe(2);
    await memory.saveEvaluation({ taskDescription: "Audit zeppelin safety", agentRole: "Analyst", quality: 9, suggestions: ["Check the zeppelin's valves"] });
    expect((await memory.search("zeppelin audit", { limit: 1 })).map((item) => item.content)).toEqual(["Check the zeppelin's valves"]);
    await memory.reset();
    expect(await memory.search("zeppelin audit")).toEqual([]);
    await memory.saveEvaluation({ taskDescription: "Audit zeppelin hangars", agentRole: "Analyst", quality: 4, suggestions: ["Count the hangars"] });
    expect((await memory.search("zeppelin audit")).map((item) => item.content)).toEqual(["Count the hangars"]);
    await memory.close();
  });
});
