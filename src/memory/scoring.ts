import { z } from "zod";
import { MemoryOptionsError } from "./errors.js";
import type { MemoryItem } from "./types.js";

/** How search results are ranked: a weighted mean of relevance, recency and importance. */
export interface MemoryScoring {
  /** Weights (non-negative, at least one positive); defaults: relevance 1, recency 0.25, importance 0.25. */
  weights?: { relevance?: number; recency?: number; importance?: number };
  /** Age at which recency falls to 0.5 (default 7 days; short-term memory: 1 hour). */
  halfLifeDays?: number;
}

/** Scoring with every default filled in. */
export interface ResolvedScoring {
  weights: { relevance: number; recency: number; importance: number };
  halfLifeDays: number;
}

/** Default half-life of long-term, entity and external memory. */
export const DEFAULT_HALF_LIFE_DAYS = 7;
/** Default half-life of short-term memory: one hour, a run's time scale. */
export const SHORT_TERM_HALF_LIFE_DAYS = 1 / 24;

const DAY_MS = 86_400_000;
const weight = z.number().finite().min(0, "must be 0 or more");

const scoringSchema = z.strictObject({
  weights: z
    .strictObject({ relevance: weight.default(1), recency: weight.default(0.25), importance: weight.default(0.25) })
    .default({ relevance: 1, recency: 0.25, importance: 0.25 })
    .refine((w) => w.relevance + w.recency + w.importance > 0, "at least one weight must be positive"),
  halfLifeDays: z.number().finite().positive("must be more than 0").optional(),
});

/** Validates scoring options once; a bad value is a MemoryOptionsError naming the field. */
export function resolveScoring(scoring: MemoryScoring | undefined, defaultHalfLifeDays = DEFAULT_HALF_LIFE_DAYS): ResolvedScoring {
  const parsed = scoringSchema.safeParse(scoring ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `scoring${issue.path.map((p) => `.${String(p)}`).join("")}: ${issue.message}`);
    throw new MemoryOptionsError(`Invalid memory scoring: ${problems.join("; ")}.`);
  }
  return { weights: parsed.data.weights, halfLifeDays: parsed.data.halfLifeDays ?? defaultHalfLifeDays };
}

/** 0.5 ^ (age / half-life): 1 for a new item, 0.5 at one half-life; future timestamps count as new. */
export function recencyOf(createdAt: number, now: number, halfLifeDays: number): number {
  const age = Math.max(0, now - createdAt);
  return 0.5 ** (age / (halfLifeDays * DAY_MS));
}

/** The weighted mean of relevance, recency and importance, in [0, 1]. */
export function combinedScore(item: { relevance: number; createdAt: number; importance: number }, scoring: ResolvedScoring, now: number): number {
  const { relevance, recency, importance } = scoring.weights;
  const total = relevance + recency + importance;
  const value = relevance * clamp01(item.relevance) + recency * recencyOf(item.createdAt, now, scoring.halfLifeDays) + importance * clamp01(item.importance);
  return value / total;
}

/** Scores candidates, best first (ties: newer first), and keeps `limit`; `unique` keeps only the best item of each content. */
export function rankItems(candidates: readonly Omit<MemoryItem, "score">[], scoring: ResolvedScoring, limit: number, options: { now?: number; unique?: boolean } = {}): MemoryItem[] {
  const now = options.now ?? Date.now();
  const ranked = candidates.map((item) => ({ ...item, score: combinedScore(item, scoring, now) })).sort((a, b) => b.score - a.score || b.createdAt - a.createdAt);
  if (!options.unique) return ranked.slice(0, limit);
  const seen = new Set<string>();
  return ranked.filter((item) => !seen.has(item.content) && seen.add(item.content)).slice(0, limit);
}

/** `value` limited to [0, 1] (NaN becomes 0). */
export function clamp01(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}
