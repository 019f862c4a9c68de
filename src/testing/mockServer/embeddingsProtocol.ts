import { isRecord } from "./wireProtocol.js";

/** Vector length of the mock embeddings unless the request asks for another (`dimensions`). */
export const MOCK_EMBEDDING_DIMENSIONS = 64;

/** The words of a text as the mock embedder sees them: lower-case runs of letters and digits. */
function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

// FNV-1a: a stable 32-bit hash, so the same word lands on the same dimension in every run.
function fnv1a(word: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    hash ^= word.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/**
 * The mock server's embedding of `text`: words hashed into `dimensions` buckets (a bag of words),
 * L2-normalised. Texts that share words have a high cosine similarity; texts with none in common
 * are near orthogonal. A text without words maps to the first unit vector.
 */
export function mockEmbedding(text: string, dimensions: number = MOCK_EMBEDDING_DIMENSIONS): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of words(text)) vector[fnv1a(word) % dimensions] = (vector[fnv1a(word) % dimensions] ?? 0) + 1;
  const norm = Math.hypot(...vector);
  if (norm === 0) {
    vector[0] = 1;
    return vector;
  }
  return vector.map((x) => x / norm);
}

/** Reads a POST /v1/embeddings body; returns a message saying what is wrong when it is not valid. */
export function parseEmbeddingsRequest(body: unknown): { model: string | undefined; input: string[]; dimensions: number } | string {
  if (!isRecord(body)) return "the request body must be a JSON object with `input` (OpenAI embeddings API)";
  const input = typeof body.input === "string" ? [body.input] : body.input;
  if (!Array.isArray(input) || input.length === 0 || !input.every((item): item is string => typeof item === "string")) {
    return "`input` must be a string or a non-empty array of strings (the mock server does not accept token arrays)";
  }
  const dimensions = body.dimensions === undefined ? MOCK_EMBEDDING_DIMENSIONS : body.dimensions;
  if (typeof dimensions !== "number" || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > 4096) {
    return "`dimensions` must be an integer between 1 and 4096";
  }
  return { model: typeof body.model === "string" ? body.model : undefined, input, dimensions };
}

/** The OpenAI embeddings response: one vector per input, usage counted in words. */
export function embeddingsResponse(model: string, input: string[], dimensions: number): unknown {
  const tokens = input.reduce((sum, text) => sum + Math.max(1, words(text).length), 0);
  return {
    object: "list",
    data: input.map((text, index) => ({ object: "embedding", index, embedding: mockEmbedding(text, dimensions) })),
    model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}
