import { createRequire } from "node:module";
import type * as YAML from "yaml";
import type { Embedder } from "../knowledge/embedders/Embedder.js";
import { resolveEmbedder, type EmbedderSpec } from "../knowledge/embedders/resolveEmbedder.js";
import type { SearchStore } from "../knowledge/store/SearchStore.js";
import { SQLiteSearchStore } from "../knowledge/store/SQLiteSearchStore.js";
import { storagePath } from "../storage/storageDir.js";
import { MemoryValueError } from "./errors.js";
import { clamp01 } from "./scoring.js";
import type { MemoryItem, MetadataValue } from "./types.js";

// The YAML printer is loaded when an object is first saved: importing crewts must not pay for it.
let yamlModule: typeof YAML | undefined;
const yaml = (): typeof YAML => (yamlModule ??= createRequire(import.meta.url)("yaml") as typeof YAML);

/** Importance of an item saved without metadata.importance. */
export const DEFAULT_IMPORTANCE = 0.5;

/** A saved value as text: strings as they are, numbers and booleans printed, objects and arrays as YAML. */
export function memoryText(value: unknown, what = "memory"): string {
  if (typeof value === "string") {
    if (value.trim() === "") throw new MemoryValueError(`Cannot save an empty text to ${what}.`);
    return value;
  }
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (typeof value === "object" && value !== null) {
    // A TaskOutput-like object: its raw text is what it says.
    const raw = (value as { raw?: unknown }).raw;
    if (typeof raw === "string" && raw.trim() !== "") return raw;
    return yaml().stringify(value).trim();
  }
  throw new MemoryValueError(`Cannot save ${value === null ? "null" : typeof value} to ${what}: save a string or an object.`);
}

/** Stored metadata: the caller's, plus createdAt (ms) and importance (0..1), taken from the caller's when valid. */
export function storedMetadata(metadata: Record<string, MetadataValue>, now = Date.now()): Record<string, MetadataValue> {
  const createdAt = typeof metadata.createdAt === "number" && Number.isFinite(metadata.createdAt) ? metadata.createdAt : now;
  const importance = typeof metadata.importance === "number" ? clamp01(metadata.importance) : DEFAULT_IMPORTANCE;
  return { ...metadata, createdAt, importance };
}

/** Splits stored metadata into the item's createdAt and importance and the rest. */
export function splitMetadata(stored: Record<string, MetadataValue>): { metadata: Record<string, MetadataValue>; createdAt: number; importance: number } {
  const { createdAt, importance, ...metadata } = stored;
  return {
    metadata,
    createdAt: typeof createdAt === "number" ? createdAt : 0,
    importance: typeof importance === "number" ? clamp01(importance) : DEFAULT_IMPORTANCE,
  };
}

/** Searches a memory's store for candidates: store results with their createdAt and importance split out. */
export async function storeCandidates(
  store: SearchStore,
  query: string,
  options: { limit: number; scoreThreshold: number; filter: Record<string, MetadataValue> | undefined; signal: AbortSignal | undefined },
): Promise<Omit<MemoryItem, "score">[]> {
  const results = await store.search(query, {
    limit: options.limit,
    scoreThreshold: options.scoreThreshold,
    ...(options.filter ? { filter: options.filter } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return results.map((result) => ({ id: result.id, content: result.content, relevance: result.score, ...splitMetadata(result.metadata) }));
}

/** A memory's store: the one given, else a SQLiteSearchStore (collection `collection`) on `path` or `file` in the storage directory. */
export function memoryStore(options: { store?: SearchStore; embedder?: EmbedderSpec | Embedder; path?: string }, file: string, collection: string): SearchStore {
  if (options.store) return options.store;
  const embedder = options.embedder === undefined ? undefined : resolveEmbedder(options.embedder);
  return new SQLiteSearchStore({ path: options.path ?? storagePath(file), collection, ...(embedder ? { embedder } : {}) });
}
