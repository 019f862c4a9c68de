import type { Prepare, SQLiteDatabase } from "../../storage/SQLiteDatabase.js";
import { ftsMatch, informativeTerms, queryTerms } from "./SearchStore.js";

/** The tables behind one FTS5 index: the rowid table it indexes and an fts5vocab ('row') table over it. */
export interface FtsTables {
  rows: string;
  vocab: string;
}

/** The FTS5 expressions for a query: every word, and without its common words when worth trying first. */
export interface FtsQueryPlan {
  /** Every word of the query (stop words dropped); undefined when none is left. */
  full: string | undefined;
  /** The words without those in half the documents or more; undefined when nothing was left out. */
  pruned: string | undefined;
}

/** The statement creating the fts5vocab table that FtsQueryPlanner reads document frequencies from. */
export const ftsVocabTable = (fts: string, vocab: string): string => `CREATE VIRTUAL TABLE IF NOT EXISTS ${vocab} USING fts5vocab(${fts}, 'row')`;

// Cached document frequencies are read again once this share of the index has changed.
const REFRESH_GROWTH = 0.01;
const MAX_CACHED_TERMS = 10_000;

/**
 * Plans keyword queries. FTS5 gives a word found in half the documents or more an IDF of 1e-6: it adds
 * next to nothing to any score but makes every document holding it a match to rank, which is most of
 * the cost of a search over a large index. So a query is tried first without such words when the other
 * words match at least `wanted` documents (see informativeTerms); the caller runs `full` when that
 * finds fewer than it wants (a filter or another collection may keep few of those matches), so no
 * result is lost. max(rowid) bounds the document count. Document frequencies (fts5vocab walks a
 * word's whole posting list) are cached until 1% of the index changed, as counted from this store's
 * writes and max(rowid), or until another store or process commits to the file (SQLiteDatabase.changeMark).
 */
export class FtsQueryPlanner {
  private readonly frequencies = new Map<string, number>();
  private cachedAt = -1;
  private changes = 0;
  private dataVersion: string | undefined;

  constructor(
    private readonly db: SQLiteDatabase,
    private readonly tables: FtsTables,
  ) {}

  async plan(text: string, wanted: number): Promise<FtsQueryPlan> {
    const terms = queryTerms(text);
    const full = ftsMatch(terms);
    if (terms.length < 2) return { full, pruned: undefined };
    const version = await this.db.changeMark();
    return this.db.use((prepare) => {
      const total = (prepare(`SELECT max(rowid) AS n FROM ${this.tables.rows}`).get() as { n: number | null } | undefined)?.n ?? 0;
      const drift = Math.abs(total - this.cachedAt) + this.changes;
      if (this.cachedAt < 0 || version !== this.dataVersion || drift > this.cachedAt * REFRESH_GROWTH || this.frequencies.size > MAX_CACHED_TERMS) {
        this.forget(total);
        this.dataVersion = version;
      }
      const read = prepare(`SELECT doc FROM ${this.tables.vocab} WHERE term = ?`);
      const documentsWith = (term: string): number => {
        let count = this.frequencies.get(term);
        if (count === undefined) {
          count = (read.get(term) as { doc: number } | undefined)?.doc ?? 0;
          this.frequencies.set(term, count);
        }
        return count;
      };
      const kept = informativeTerms(terms, total, wanted, documentsWith);
      return { full, pruned: kept.length < terms.length ? ftsMatch(kept) : undefined };
    });
  }

  /** Documents holding `term`, from the cache that plan() keeps current (run plan() first). */
  documentsWith(prepare: Prepare, term: string): number {
    let count = this.frequencies.get(term);
    if (count === undefined) {
      count = (prepare(`SELECT doc FROM ${this.tables.vocab} WHERE term = ?`).get(term) as { doc: number } | undefined)?.doc ?? 0;
      this.frequencies.set(term, count);
    }
    return count;
  }

  /** Counts documents this store changed or deleted, once written (inserts show in max(rowid)). */
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

/**
 * Runs a ranked keyword query with the pruned expression first and, when that finds fewer than
 * `wanted` rows (after filters), with every word.
 */
export async function rankWithPlan<T>(plan: FtsQueryPlan, wanted: number, rank: (match: string) => Promise<T[]>): Promise<T[]> {
  if (plan.full === undefined) return [];
  if (plan.pruned !== undefined) {
    const rows = await rank(plan.pruned);
    if (rows.length >= wanted) return rows;
  }
  return rank(plan.full);
}
