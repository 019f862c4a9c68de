import { createHash } from "node:crypto";

/** A metadata value a document can carry and a filter can match. */
export type MetadataValue = string | number | boolean | null;

/** A piece of text to index. */
export interface SearchDocument {
  /** Unique within the store; adding the same id again replaces the document. */
  id: string;
  content: string;
  metadata?: Record<string, MetadataValue>;
}

/** A document as the store holds it. */
export interface StoredDocument {
  id: string;
  content: string;
  metadata: Record<string, MetadataValue>;
}

/** A document found by a search, with its score (higher is better, in [0, 1]). */
export interface SearchResult {
  id: string;
  content: string;
  metadata: Record<string, MetadataValue>;
  score: number;
}

/** How to search. */
export interface SearchOptions {
  /** Most results returned (default 5, CrewAI's knowledge default). */
  limit?: number;
  /** Results scoring below this are dropped. */
  scoreThreshold?: number;
  /** Only documents whose metadata has exactly these values. */
  filter?: Record<string, MetadataValue>;
  /**
   * "keyword" (BM25), "vector" (needs an embedder), or "hybrid" (both, fused by reciprocal rank).
   * Default: hybrid when the store has an embedder, keyword otherwise.
   */
  mode?: "keyword" | "vector" | "hybrid";
  signal?: AbortSignal;
}

/** What one upsert did. */
export interface UpsertReport {
  /** Documents new to the store. */
  added: number;
  /** Documents whose content or metadata changed. */
  updated: number;
  /** Documents identical to what the store held: nothing was written or embedded. */
  unchanged: number;
  /** Texts sent to the embedder (changed content not already embedded under the same hash). */
  embedded: number;
}

/**
 * Where knowledge and memory keep searchable text. The embedded default is SQLiteSearchStore; other
 * backends (pgvector, LanceDB) implement this and pass test/knowledge/searchStoreConformance.ts.
 */
export interface SearchStore {
  /** Adds or replaces documents by id; unchanged content is never embedded again. */
  upsert(documents: readonly SearchDocument[], options?: { signal?: AbortSignal }): Promise<UpsertReport>;
  search(query: string, options?: SearchOptions): Promise<SearchResult[]>;
  /** Ids of the documents whose metadata has exactly the values of `filter` (every document without one). */
  ids(filter?: Record<string, MetadataValue>): Promise<string[]>;
  /** The documents with these ids, in the order asked (unknown ids are left out). */
  get(ids: readonly string[]): Promise<StoredDocument[]>;
  /** Removes documents by id (unknown ids are ignored). */
  delete(ids: readonly string[]): Promise<void>;
  count(): Promise<number>;
  /** Removes every document. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** Thrown for a search the store cannot run (e.g. vector mode without an embedder). */
export class SearchStoreError extends Error {
  override name = "SearchStoreError";
}

/** Rank constant of reciprocal rank fusion (60, as in Cormack et al. and most hybrid search engines). */
export const RRF_K = 60;

/**
 * Fuses ranked id lists by reciprocal rank: each list adds 1/(RRF_K + rank). Scores are divided by
 * the best score possible (first in every list), so they fall in (0, 1].
 */
export function reciprocalRankFusion(rankings: readonly (readonly string[])[]): Map<string, number> {
  const scores = new Map<string, number>();
  for (const ranking of rankings) {
    ranking.forEach((id, index) => scores.set(id, (scores.get(id) ?? 0) + 1 / (RRF_K + index + 1)));
  }
  const best = rankings.length / (RRF_K + 1);
  for (const [id, score] of scores) scores.set(id, score / best);
  return scores;
}

// English words too common to tell documents apart; dropped from queries that have other words.
const STOP_WORDS = new Set(
  ("a an and are as at be been but by can could did do does for from had has have how i if in into is it its " +
    "me my no not of on or our so than that the their them then there these they this to was we were what when " +
    "where which who whom why will with would you your").split(" "),
);

/** The distinct words of a query worth searching for: lowercased, stop words dropped unless nothing else is left. */
export function queryTerms(text: string): string[] {
  const words = [...new Set(text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [])];
  const meaningful = words.filter((word) => !STOP_WORDS.has(word));
  return meaningful.length > 0 ? meaningful : words;
}

/** Words of a query as an FTS5 expression matching any of them, each quoted so no word is read as syntax. */
export function ftsQuery(text: string): string | undefined {
  return ftsMatch(queryTerms(text));
}

/** Words as an FTS5 expression matching any of them, each quoted so no word is read as syntax. */
export function ftsMatch(words: readonly string[]): string | undefined {
  if (words.length === 0) return undefined;
  return words.map((word) => `"${word}"`).join(" OR ");
}

/**
 * The query words worth ranking by. FTS5 floors the IDF of a word found in half the documents or more
 * to 1e-6: such a word adds next to nothing to a score, yet makes every document holding it a match
 * to rank. It is dropped when the other words alone match at least `wanted` documents; otherwise
 * (small collections) every word is kept. The best results stay essentially the same (scores move by
 * about 1e-6) as long as the pruned query still finds `wanted` documents after filters: stores run the
 * full query when it does not. `documentCount` may be an upper bound (fewer words are then dropped).
 */
export function informativeTerms(terms: readonly string[], documentCount: number, wanted: number, documentsWith: (term: string) => number): string[] {
  if (terms.length < 2) return [...terms];
  const counts = terms.map(documentsWith);
  const kept = terms.filter((_, i) => (counts[i] as number) * 2 < documentCount);
  const keptMatches = Math.max(0, ...counts.filter((count) => count * 2 < documentCount));
  return kept.length > 0 && kept.length < terms.length && keptMatches >= wanted ? kept : [...terms];
}

/** SHA-256 of a text, hex: equal hashes mean the text need not be embedded again. */
export function contentHash(content: string): string {
  return createHash("sha256").update(content).digest("hex");
}
