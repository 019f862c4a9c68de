import type { MetadataValue } from "../knowledge/store/SearchStore.js";
import type { CallSource } from "../llm/types.js";

export type { MetadataValue };

/** Which memory a Memory is: CrewAI's short-term, long-term, entity and external memories. */
export type MemoryType = "short" | "long" | "entity" | "external";

/** Ids of whatever searches or saves, carried into memory events: the ids an LLM call carries. */
export type MemoryEventSource = CallSource;

/** One remembered thing found by a search. */
export interface MemoryItem {
  id: string;
  content: string;
  metadata: Record<string, MetadataValue>;
  /** Combined score in [0, 1] (relevance, recency and importance, weighted): items are ranked by it. */
  score: number;
  /** How well the content matches the query, in [0, 1], as the store scored it. */
  relevance: number;
  /** When it was saved, in ms since the epoch. */
  createdAt: number;
  /** In [0, 1]; 0.5 unless saved with metadata.importance (long-term: quality / 10). */
  importance: number;
}

/** How to search a memory. */
export interface MemorySearchOptions {
  /** Most items returned (default 3, CrewAI's). */
  limit?: number;
  /**
   * Items whose relevance (the store's score, not the combined score) is below this are dropped.
   * Default 0.35, CrewAI's; 0 keeps every match.
   */
  scoreThreshold?: number;
  /** Only items whose metadata has exactly these values. */
  filter?: Record<string, MetadataValue>;
  signal?: AbortSignal;
  /** Who searches, for memory_query_* events. */
  source?: MemoryEventSource;
}

/** Default `limit` of a memory search (CrewAI's). */
export const DEFAULT_MEMORY_LIMIT = 3;
/** Default `scoreThreshold` of a memory search (CrewAI's RAG storage default). */
export const DEFAULT_SCORE_THRESHOLD = 0.35;

/**
 * What every memory does. Writes are deferred: `save` queues and returns at once, `search` waits for
 * this memory's queued writes, `flush` waits for all of them and rejects if any failed.
 */
export interface Memory {
  readonly kind: MemoryType;
  /**
   * Queues a value (a string, or an object stored as readable text). Metadata keys agentId, agentRole,
   * taskId and taskName also name the source in events; `importance` (0..1) and `createdAt` (ms) set those fields.
   */
  save(value: unknown, metadata?: Record<string, MetadataValue>): Promise<void>;
  search(query: string, options?: MemorySearchOptions): Promise<MemoryItem[]>;
  /** Forgets everything this memory holds (after its queued writes). */
  reset(): Promise<void>;
  /** Waits for every queued write; rejects with a MemoryWriteError if any failed since the last flush. */
  flush(): Promise<void>;
  /** Flushes, then releases files and connections (rejects like flush, after releasing). */
  close(): Promise<void>;
}
