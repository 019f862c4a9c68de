import { reciprocalRankFusion, SearchStoreError, type SearchOptions } from "./SearchStore.js";

/** Results a search returns unless told otherwise. */
export const DEFAULT_SEARCH_LIMIT = 5;
/** Candidates taken from each ranking per result asked for, so fusion and filters have enough to choose from. */
export const CANDIDATES_PER_RESULT = 4;

/** A store's two rankings for one query, each up to `pool` results, best first, scores in [0, 1]. */
export interface Rankings<T extends { id: string; score: number }> {
  keyword(pool: number): T[] | Promise<T[]>;
  vector(pool: number): Promise<T[]>;
}

/**
 * The steps every SearchStore takes around its own rankings: pick the mode (hybrid when there is an
 * embedder, keyword otherwise), fuse both rankings by reciprocal rank in hybrid mode, drop results
 * under the score threshold, and keep `limit`.
 */
export async function rankedSearch<T extends { id: string; score: number }>(options: SearchOptions, hasEmbedder: boolean, rankings: Rankings<T>): Promise<T[]> {
  const limit = options.limit ?? DEFAULT_SEARCH_LIMIT;
  const mode = options.mode ?? (hasEmbedder ? "hybrid" : "keyword");
  if (mode !== "keyword" && !hasEmbedder) {
    throw new SearchStoreError(`${mode} search needs an embedder: pass embedder to the store (or search with mode: "keyword").`);
  }
  const pool = Math.max(limit * CANDIDATES_PER_RESULT, limit);
  let ranked: T[];
  // One ranking alone needs no extra candidates: its best `limit` are the answer (fusion needs the pool).
  if (mode === "keyword") ranked = await rankings.keyword(limit);
  else if (mode === "vector") ranked = await rankings.vector(limit);
  else {
    const keyword = await rankings.keyword(pool);
    const vector = await rankings.vector(pool);
    const byId = new Map([...vector, ...keyword].map((r) => [r.id, r]));
    const fused = reciprocalRankFusion([keyword.map((r) => r.id), vector.map((r) => r.id)]);
    ranked = [...fused].map(([id, score]) => ({ ...(byId.get(id) as T), score })).sort((a, b) => b.score - a.score);
  }
  const threshold = options.scoreThreshold;
  return ranked.filter((r) => threshold === undefined || r.score >= threshold).slice(0, limit);
}
