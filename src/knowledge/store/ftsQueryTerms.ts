import type { SQLiteDatabase } from "../../storage/SQLiteDatabase.js";
import { ftsMatch, informativeTerms, queryTerms } from "./SearchStore.js";

/** The tables behind one FTS5 index: the rowid table it indexes and an fts5vocab ('row') table over it. */
export interface FtsTables {
  rows: string;
  vocab: string;
}

/** The statement creating the fts5vocab table that FtsQueryPlanner reads document frequencies from. */
export const ftsVocabTable = (fts: string, vocab: string): string => `CREATE VIRTUAL TABLE IF NOT EXISTS ${vocab} USING fts5vocab(${fts}, 'row')`;

// Cached document frequencies are read again once this share of the index has changed.
const REFRESH_GROWTH = 0.01;
const MAX_CACHED_TERMS = 10_000;

/**
 * Turns queries into FTS5 MATCH expressions: their words (stop words dropped), without the ones in half
 * the documents or more when the rest find `wanted` matches (see informativeTerms). Ranking every
 * document with "task" in it costs most of a search over a large index and changes none of the best
 * results. max(rowid) bounds the document count. Document frequencies (fts5vocab walks a word's whole
 * posting list) are cached until the documents added, changed or deleted since reach 1% of the index.
 */
export class FtsQueryPlanner {
  private readonly frequencies = new Map<string, number>();
  private cachedAt = -1;
  private changes = 0;

  constructor(
    private readonly db: SQLiteDatabase,
    private readonly tables: FtsTables,
  ) {}

  async match(text: string, wanted: number): Promise<string | undefined> {
    const terms = queryTerms(text);
    if (terms.length < 2) return ftsMatch(terms);
    const total = ((await this.db.statement(`SELECT max(rowid) AS n FROM ${this.tables.rows}`)).get() as { n: number | null } | undefined)?.n ?? 0;
    const drift = Math.abs(total - this.cachedAt) + this.changes;
    if (this.cachedAt < 0 || drift > this.cachedAt * REFRESH_GROWTH || this.frequencies.size > MAX_CACHED_TERMS) this.forget(total);
    const read = await this.db.statement(`SELECT doc FROM ${this.tables.vocab} WHERE term = ?`);
    const documentsWith = (term: string): number => {
      let count = this.frequencies.get(term);
      if (count === undefined) {
        count = (read.get(term) as { doc: number } | undefined)?.doc ?? 0;
        this.frequencies.set(term, count);
      }
      return count;
    };
    return ftsMatch(informativeTerms(terms, total, wanted, documentsWith));
  }

  /** Counts documents whose words this store changed or deleted (inserts show in max(rowid)). */
  changed(documents: number): void {
    this.changes += documents;
  }

  /** Drops cached frequencies. */
  forget(total = -1): void {
    this.frequencies.clear();
    this.cachedAt = total;
    this.changes = 0;
  }
}
