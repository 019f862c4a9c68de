import type { SQLiteDatabase } from "../../storage/SQLiteDatabase.js";
import { ftsMatch, informativeTerms, queryTerms } from "./SearchStore.js";

/** The tables behind one FTS5 index: the rowid table it indexes and an fts5vocab ('row') table over it. */
export interface FtsTables {
  rows: string;
  vocab: string;
}

/** The statement creating the fts5vocab table that `ftsQueryFor` reads document frequencies from. */
export const ftsVocabTable = (fts: string, vocab: string): string => `CREATE VIRTUAL TABLE IF NOT EXISTS ${vocab} USING fts5vocab(${fts}, 'row')`;

/**
 * The FTS5 MATCH expression for a query: its words (stop words dropped), without the ones in half the
 * documents or more when the rest find `wanted` matches (see informativeTerms). Ranking every document
 * with "task" in it costs most of a search over a large index and changes none of the best results.
 * max(rowid) bounds the document count.
 */
export async function ftsQueryFor(db: SQLiteDatabase, tables: FtsTables, text: string, wanted: number): Promise<string | undefined> {
  const terms = queryTerms(text);
  if (terms.length < 2) return ftsMatch(terms);
  const total = ((await db.statement(`SELECT max(rowid) AS n FROM ${tables.rows}`)).get() as { n: number | null } | undefined)?.n ?? 0;
  const frequency = await db.statement(`SELECT doc FROM ${tables.vocab} WHERE term = ?`);
  return ftsMatch(informativeTerms(terms, total, wanted, (term) => (frequency.get(term) as { doc: number } | undefined)?.doc ?? 0));
}
