import { SQLiteDatabase, type Prepare } from "../../storage/SQLiteDatabase.js";
import { storagePath } from "../../storage/storageDir.js";
import { parseStoredJson } from "../../storage/StorageError.js";
import type { Embedder } from "../embedders/Embedder.js";
import {
  contentHash,
  type MetadataValue,
  type SearchDocument,
  type SearchOptions,
  type SearchResult,
  type SearchStore,
  type StoredDocument,
  type UpsertReport,
} from "./SearchStore.js";
import { ftsStats, matchTerms, rankByBm25 } from "./bm25.js";
import { filteredDocuments, type DocumentRow } from "./filterIndex.js";
import { FtsMirror } from "./ftsMirror.js";
import { FtsQueryPlanner, ftsVocabTable, rankWithPlan } from "./ftsQueryTerms.js";
import { rankedSearch } from "./ranking.js";
import { VectorIndex } from "./VectorIndex.js";
import { deleteVectors, filterSql, float32Blob, VECTOR_TABLES_SQL, vectorDims, vectorLookupSql, type FilterSql, type PendingDocument, type Row } from "./storeSql.js";

/** File of the default search store in the storage directory. */
export const SEARCH_STORE_DB_FILE = "knowledge.db";

/** Options of SQLiteSearchStore. */
export interface SQLiteSearchStoreOptions {
  /** Database file; default knowledge.db in the storage directory; ":memory:" for a private one. */
  path?: string;
  /** Documents live in a named collection; stores on one file with different collections do not see each other. */
  collection?: string;
  /** Enables vector and hybrid search; without it the store searches keywords (FTS5, BM25) only. */
  embedder?: Embedder;
}

const SETUP = [
  `CREATE TABLE IF NOT EXISTS documents (
    rowid INTEGER PRIMARY KEY,
    collection TEXT NOT NULL,
    id TEXT NOT NULL,
    content TEXT NOT NULL,
    metadata TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    UNIQUE (collection, id)
  )`,
  // rowid of an FTS row is the rowid of its document.
  "CREATE VIRTUAL TABLE IF NOT EXISTS documents_fts USING fts5(content, tokenize = 'unicode61')",
  // Document frequencies of indexed words, to leave words in most documents out of a query.
  ftsVocabTable("documents_fts", "documents_fts_vocab"),
  // Vectors by embedder and content hash: unchanged text is never embedded twice, even after a reset.
  "CREATE TABLE IF NOT EXISTS embedding_cache (embedder TEXT NOT NULL, content_hash TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (embedder, content_hash))",
];

const FIND_SQL = "SELECT rowid, content_hash AS hash, metadata FROM documents WHERE collection = ? AND id = ?";
// Keyword matches ranked by FTS5 alone per result wanted, before documents are read and filtered.
const KEYWORD_OVERFETCH = 4;

/**
 * The embedded SearchStore on libsql: FTS5 keyword search always, vector search (F32_BLOB column and
 * exact cosine search through VectorIndex) with an embedder, both fused by reciprocal rank in hybrid mode.
 */
export class SQLiteSearchStore implements SearchStore {
  readonly collection: string;
  private readonly db: SQLiteDatabase;
  private readonly embedder: Embedder | undefined;
  private readonly vectorTables = new Set<number>();
  // In-memory vector indexes of this collection and embedder, by dimensions (see VectorIndex).
  private readonly vectorIndexes = new Map<number, VectorIndex>();
  private readonly queries: FtsQueryPlanner;
  // Metadata keys with an expression index on this file (filterIndex.ts).
  private readonly filterIndexes = new Set<string>();

  constructor(options: SQLiteSearchStoreOptions = {}) {
    this.collection = options.collection ?? "knowledge";
    this.embedder = options.embedder;
    const path = options.path;
    this.db = new SQLiteDatabase(() => path ?? storagePath(SEARCH_STORE_DB_FILE), SETUP);
    this.queries = new FtsQueryPlanner(this.db, { rows: "documents", vocab: "documents_fts_vocab" });
  }

  /** The database file (resolved on first use). */
  get file(): string {
    return this.db.file;
  }

  async upsert(documents: readonly SearchDocument[], options: { signal?: AbortSignal } = {}): Promise<UpsertReport> {
    const report: UpsertReport = { added: 0, updated: 0, unchanged: 0, embedded: 0 };
    const pending = await this.changedDocuments(documents, report);
    if (pending.length === 0) return report;

    // Embedding may take long (a remote model): statements are prepared after it, in the transaction.
    const vectors = this.embedder ? await this.vectorsFor(pending.map((p) => ({ hash: p.hash, content: p.doc.content })), options.signal, report) : undefined;
    const dims = vectors?.values().next().value?.length;
    if (dims !== undefined) await this.ensureVectorTable(dims);

    const written: { rowid: number; vector: number[] }[] = [];
    await this.db.transaction((prepare) => {
      const mirror = FtsMirror.of(this.db, "documents_fts", "content").tracking(prepare);
      const find = prepare(FIND_SQL);
      const insert = prepare("INSERT INTO documents (collection, id, content, metadata, content_hash) VALUES (?, ?, ?, ?, ?)");
      const update = prepare("UPDATE documents SET content = ?, metadata = ?, content_hash = ? WHERE rowid = ?");
      const ftsDelete = prepare("DELETE FROM documents_fts WHERE rowid = ?");
      const ftsInsert = prepare("INSERT INTO documents_fts (rowid, content) VALUES (?, ?)");
      for (const item of pending) {
        // Looked up again in the transaction: another store on the file may have added or removed the id since.
        const existing = find.get(this.collection, item.doc.id) as { rowid: number; hash: string } | undefined;
        let rowid = existing?.rowid;
        if (rowid === undefined) {
          rowid = Number(insert.run(this.collection, item.doc.id, item.doc.content, item.metadata, item.hash).lastInsertRowid);
        } else {
          update.run(item.doc.content, item.metadata, item.hash, rowid);
        }
        if (existing?.hash !== item.hash) {
          if (existing) ftsDelete.run(rowid);
          ftsInsert.run(rowid, item.doc.content);
          mirror?.add(rowid, item.doc.content);
        }
        const vector = vectors?.get(item.hash);
        if (vector && dims !== undefined) {
          if (existing) deleteVectors(prepare, [rowid]);
          // A little-endian float32 blob is F32_BLOB's own format: no JSON to print and parse.
          prepare(`INSERT INTO vectors_${dims} (rowid, embedder, embedding) VALUES (?, ?, ?)`).run(rowid, this.embedderId(), float32Blob(vector));
          written.push({ rowid, vector });
        }
      }
    });
    const index = dims === undefined ? undefined : this.vectorIndexes.get(dims);
    if (index?.mark !== undefined) for (const { rowid, vector } of written) index.put(rowid, vector);
    this.queries.changed(pending.filter((item) => item.contentChanged && item.rowid !== undefined).length);
    return report;
  }

  /** The documents to write (the last of each id), counted in `report`; unchanged ones with their vector are skipped. */
  private changedDocuments(documents: readonly SearchDocument[], report: UpsertReport): Promise<PendingDocument[]> {
    const latest = new Map(documents.map((doc) => [doc.id, doc]));
    return this.db.use((prepare) => {
      const find = prepare(FIND_SQL);
      const hasVector = this.embedder ? prepare(vectorLookupSql(vectorDims(prepare(VECTOR_TABLES_SQL).all() as { name: string }[]))) : undefined;
      const pending: PendingDocument[] = [];
      for (const doc of latest.values()) {
        const hash = contentHash(doc.content);
        const metadata = JSON.stringify(doc.metadata ?? {});
        const existing = find.get(this.collection, doc.id) as { rowid: number; hash: string; metadata: string } | undefined;
        const contentChanged = existing?.hash !== hash;
        const missingVector = existing !== undefined && hasVector !== undefined && hasVector.get(existing.rowid, this.embedderId()) === undefined;
        if (existing && !contentChanged && existing.metadata === metadata && !missingVector) {
          report.unchanged++;
          continue;
        }
        pending.push({ doc, hash, metadata, rowid: existing?.rowid, contentChanged });
        if (existing) report.updated++;
        else report.added++;
      }
      return pending;
    });
  }

  async search(query: string, options: SearchOptions = {}): Promise<SearchResult[]> {
    const filter = filterSql(options.filter ?? {});
    // Searching a store that was never written creates no file.
    if (!(await this.db.canRead())) return [];
    return rankedSearch(options, this.embedder !== undefined, {
      keyword: (pool) => this.keywordSearch(query, pool, filter, options.filter),
      vector: (pool) => this.vectorSearch(query, pool, filter, options.signal),
    });
  }

  async ids(filter: Record<string, MetadataValue> = {}): Promise<string[]> {
    const where = filterSql(filter);
    const rows = await this.db.read((prepare) => prepare(`SELECT d.id FROM documents d WHERE d.collection = ?${where.sql} ORDER BY d.rowid`).all(this.collection, ...where.params) as { id: string }[]);
    return (rows ?? []).map((row) => row.id);
  }

  async get(ids: readonly string[]): Promise<StoredDocument[]> {
    const rows = await this.db.read((prepare) => {
      const read = prepare("SELECT id, content, metadata FROM documents WHERE collection = ? AND id = ?");
      return ids.flatMap((id) => {
        const row = read.get(this.collection, id) as Omit<Row, "rowid"> | undefined;
        return row ? [row] : [];
      });
    });
    return (rows ?? []).map((row) => ({ id: row.id, content: row.content, metadata: this.metadataOf(row) }));
  }

  async delete(ids: readonly string[]): Promise<void> {
    if (ids.length === 0 || !(await this.db.canRead())) return;
    await this.removeRows((prepare) => {
      const find = prepare("SELECT rowid FROM documents WHERE collection = ? AND id = ?");
      return ids.flatMap((id) => {
        const row = find.get(this.collection, id) as { rowid: number } | undefined;
        return row ? [row.rowid] : [];
      });
    });
  }

  async count(): Promise<number> {
    const row = await this.db.read((prepare) => prepare("SELECT count(*) AS n FROM documents WHERE collection = ?").get(this.collection) as { n: number } | undefined);
    return row?.n ?? 0;
  }

  async reset(): Promise<void> {
    // Resetting a store that was never written creates no file.
    if (!(await this.db.canRead())) return;
    await this.removeRows((prepare) => (prepare("SELECT rowid FROM documents WHERE collection = ?").all(this.collection) as { rowid: number }[]).map((r) => r.rowid));
  }

  /** Releases this store's share of the file's connection; the next call opens it again. */
  async close(): Promise<void> {
    this.vectorTables.clear();
    this.filterIndexes.clear();
    this.vectorIndexes.clear();
    await this.db.close();
  }

  private embedderId(): string {
    return this.embedder?.id ?? "";
  }

  private async keywordSearch(query: string, limit: number, filter: FilterSql, filterValues: Record<string, MetadataValue> | undefined): Promise<SearchResult[]> {
    const plan = await this.queries.plan(query, limit);
    // A metadata filter usually keeps few documents (one run, one entity): ranking by FTS5 alone would mostly rank others.
    const only = filter.sql === "" || !filterValues ? undefined : await this.db.use((prepare) => filteredDocuments(prepare, this.collection, filterValues, this.filterIndexes));
    const rank = async (match: string) => {
      if (only) return this.rankedAmong(match, limit, only);
      return (filter.sql === "" ? await this.rankedByFts(match, limit, filter) : undefined) ?? (await this.rankedByJoin(match, limit, filter));
    };
    const rows = await rankWithPlan(plan, limit, rank);
    // BM25 is unbounded (SQLite negates it: lower is better): scores are relative to the best match.
    const best = rows[0]?.rank ?? -1;
    return rows.map((row) => this.toResult(row, best < 0 ? row.rank / best : 1));
  }

  /**
   * The best `limit` matches among `rows` (the documents a filter kept), scored in process with
   * FTS5's bm25() formula and the index's statistics: FTS5 cannot restrict a MATCH to given rowids, so it
   * would rank every match of the whole index to keep a few.
   */
  private rankedAmong(match: string, limit: number, rows: DocumentRow[]): Promise<(Row & { rank: number })[]> {
    if (rows.length === 0) return Promise.resolve([]);
    return this.db.use((prepare) => {
      const stats = ftsStats(prepare, "documents_fts");
      return rankByBm25(rows, matchTerms(match), stats, (term) => this.queries.documentsWith(prepare, term)).slice(0, limit);
    });
  }

  /**
   * The best `limit` matches, ranked by FTS5 alone over the top KEYWORD_OVERFETCH·limit, then looked up
   * and filtered one by one: joining every match to documents first costs 3x more when a query word is
   * in thousands of chunks. Undefined when filters or other collections leave fewer than `limit` of a
   * full overfetch (more matches may exist below it).
   */
  private rankedByFts(match: string, limit: number, filter: FilterSql): Promise<(Row & { rank: number })[] | undefined> {
    const k = limit * KEYWORD_OVERFETCH;
    return this.db.use((prepare) => {
      // The index's in-process mirror ranks the same matches with the same scores, without FTS5's reads per match.
      const current = FtsMirror.of(this.db, "documents_fts", "content").current(prepare);
      const ranked =
        current?.mirror.rank(matchTerms(match), current.stats, k)?.best ??
        (prepare("SELECT rowid, bm25(documents_fts) AS rank FROM documents_fts WHERE documents_fts MATCH ? ORDER BY rank LIMIT ?").all(match, k) as { rowid: number; rank: number }[]);
      const lookup = prepare(`SELECT d.rowid, d.id, d.content, d.metadata FROM documents d WHERE d.rowid = ? AND d.collection = ?${filter.sql}`);
      const rows: (Row & { rank: number })[] = [];
      for (const { rowid, rank } of ranked) {
        const row = lookup.get(rowid, this.collection, ...filter.params) as Row | undefined;
        if (row) rows.push({ ...row, rank });
        if (rows.length === limit) return rows;
      }
      return ranked.length < k ? rows : undefined;
    });
  }

  /** The best `limit` matches, every match joined to its document and filtered before ranking. */
  private rankedByJoin(match: string, limit: number, filter: FilterSql): Promise<(Row & { rank: number })[]> {
    const sql =
      "SELECT d.rowid, d.id, d.content, d.metadata, bm25(documents_fts) AS rank FROM documents_fts JOIN documents d ON d.rowid = documents_fts.rowid " +
      `WHERE documents_fts MATCH ? AND d.collection = ?${filter.sql} ORDER BY rank LIMIT ?`;
    return this.db.use((prepare) => prepare(sql).all(match, this.collection, ...filter.params, limit) as (Row & { rank: number })[]);
  }

  private async vectorSearch(query: string, limit: number, filter: FilterSql, signal: AbortSignal | undefined): Promise<SearchResult[]> {
    const [vector] = await (this.embedder as Embedder).embed([query], signal ? { signal } : {});
    if (!vector) return [];
    const dims = vector.length;
    const index = await this.vectorIndex(dims);
    if (!index) return [];
    const rows = await this.db.use((prepare) => {
      const lookup = prepare(`SELECT d.rowid, d.id, d.content, d.metadata FROM documents d WHERE d.rowid = ? AND d.collection = ?${filter.sql}`);
      const found = new Map<number, Row>();
      // A filter is checked on each candidate as the search goes, so filtered searches stay exact.
      const hits = index.nearest(prepare, vector, limit, (rowid) => {
        const row = lookup.get(rowid, this.collection, ...filter.params) as Row | undefined;
        if (row) found.set(rowid, row);
        return row !== undefined;
      });
      return hits.map((hit) => ({ row: found.get(hit.rowid) as Row, similarity: hit.similarity }));
    });
    return rows.map(({ row, similarity }) => this.toResult(row, Math.max(0, Math.min(1, similarity))));
  }

  /**
   * The in-memory index of vectors_<dims> for this collection and embedder, loaded on first use and
   * again when another handle or process wrote to the file; undefined when the table does not exist.
   */
  private async vectorIndex(dims: number): Promise<VectorIndex | undefined> {
    const mark = await this.db.changeMark();
    return this.db.use((prepare) => {
      if (prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(`vectors_${dims}`) === undefined) return undefined;
      let index = this.vectorIndexes.get(dims);
      if (!index) {
        index = new VectorIndex(dims, `vectors_${dims}`);
        this.vectorIndexes.set(dims, index);
      }
      if (index.mark !== mark) {
        index.load(prepare, this.collection, this.embedderId());
        index.mark = mark;
      }
      return index;
    });
  }

  /** Vectors by content hash: cached ones read, the rest embedded (each distinct text once) and cached. */
  private async vectorsFor(items: { hash: string; content: string }[], signal: AbortSignal | undefined, report: UpsertReport): Promise<Map<string, number[]>> {
    const embedder = this.embedder as Embedder;
    const vectors = new Map<string, number[]>();
    const missing = new Map<string, string>();
    await this.db.use((prepare) => {
      const read = prepare("SELECT vector FROM embedding_cache WHERE embedder = ? AND content_hash = ?");
      for (const { hash, content } of items) {
        if (vectors.has(hash) || missing.has(hash)) continue;
        const row = read.get(embedder.id, hash) as { vector: Buffer } | undefined;
        if (row) vectors.set(hash, [...new Float32Array(row.vector.buffer.slice(row.vector.byteOffset, row.vector.byteOffset + row.vector.byteLength))]);
        else missing.set(hash, content);
      }
    });
    if (missing.size > 0) {
      const embedded = await embedder.embed([...missing.values()], signal ? { signal } : {});
      report.embedded += missing.size;
      await this.db.use((prepare) => {
        const write = prepare("INSERT OR REPLACE INTO embedding_cache (embedder, content_hash, vector) VALUES (?, ?, ?)");
        [...missing.keys()].forEach((hash, index) => {
          const vector = embedded[index] as number[];
          vectors.set(hash, vector);
          write.run(embedder.id, hash, float32Blob(vector));
        });
      });
    }
    return vectors;
  }

  private async ensureVectorTable(dims: number): Promise<void> {
    if (this.vectorTables.has(dims)) return;
    await this.db.use((prepare) => {
      prepare(`CREATE TABLE IF NOT EXISTS vectors_${dims} (rowid INTEGER PRIMARY KEY, embedder TEXT NOT NULL, embedding F32_BLOB(${dims}) NOT NULL)`).run();
      // Files of earlier versions have a libsql DiskANN index on the table: searches no longer use it
      // (VectorIndex), and it made every insert cost ~7 ms.
      prepare(`DROP INDEX IF EXISTS vectors_${dims}_idx`).run();
    });
    this.vectorTables.add(dims);
  }

  /** Deletes the documents whose rowids `select` finds, in the transaction that deletes them. */
  private async removeRows(select: (prepare: Prepare) => number[]): Promise<void> {
    const removed = await this.db.transaction((prepare) => {
      const rowids = select(prepare);
      if (rowids.length === 0) return rowids;
      const mirror = FtsMirror.of(this.db, "documents_fts", "content").tracking(prepare);
      deleteVectors(prepare, rowids);
      const ftsDelete = prepare("DELETE FROM documents_fts WHERE rowid = ?");
      const docDelete = prepare("DELETE FROM documents WHERE rowid = ?");
      for (const rowid of rowids) {
        ftsDelete.run(rowid);
        docDelete.run(rowid);
        mirror?.remove(rowid);
      }
      return rowids;
    });
    for (const index of this.vectorIndexes.values()) for (const rowid of removed) index.remove(rowid);
    this.queries.changed(removed.length);
  }

  private metadataOf(row: { id: string; metadata: string }): Record<string, MetadataValue> {
    const where = `The metadata of document "${row.id}" (collection "${this.collection}", table documents)`;
    return parseStoredJson(row.metadata, this.db.file, where, "Delete that document (or the file) and add it again.") as Record<string, MetadataValue>;
  }

  private toResult(row: Row, score: number): SearchResult {
    return { id: row.id, content: row.content, metadata: this.metadataOf(row), score };
  }
}
