import type { UsageMetrics } from "../../llm/UsageMetrics.js";

/** Options of one embed call. */
export interface EmbedOptions {
  /** Cancels the call (and any retry wait). */
  signal?: AbortSignal;
}

/** Turns texts into vectors: one vector per text, in order, all of `dimensions` numbers. */
export interface Embedder {
  /** Names the embedder and its model ("openai/text-embedding-3-small"); stores key cached vectors by it. */
  readonly id: string;
  /** Length of every vector, or undefined until the first call when the model's size is not known up front. */
  readonly dimensions: number | undefined;
  embed(texts: readonly string[], options?: EmbedOptions): Promise<number[][]>;
  /** Tokens and requests spent so far, when the embedder counts them. */
  readonly usage?: UsageMetrics;
}

/** Thrown when an embedder is misconfigured or returns vectors of the wrong count or size. */
export class EmbedderError extends Error {
  override name = "EmbedderError";
}

/** Whether `value` is an Embedder (an object with `embed` and `id`). */
export function isEmbedder(value: unknown): value is Embedder {
  return typeof value === "object" && value !== null && typeof (value as { embed?: unknown }).embed === "function" && typeof (value as { id?: unknown }).id === "string";
}
