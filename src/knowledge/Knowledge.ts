import { z } from "zod";
import { eventBus } from "../events/EventBus.js";
import type { CallSource } from "../llm/types.js";
import { storagePath } from "../storage/storageDir.js";
import type { Embedder } from "./embedders/Embedder.js";
import { BaseFileKnowledgeSource } from "./sources/BaseFileKnowledgeSource.js";
import { BaseKnowledgeSource, type KnowledgeChunk } from "./sources/BaseKnowledgeSource.js";
import { SQLiteSearchStore } from "./store/SQLiteSearchStore.js";
import type { MetadataValue, SearchResult, SearchStore } from "./store/SearchStore.js";

/** How many results a knowledge query returns and how good they must be (CrewAI's KnowledgeConfig). */
export interface KnowledgeConfig {
  /** Most snippets added to a prompt (default 3). */
  resultsLimit?: number;
  /** Snippets scoring below this (0..1) are left out (default 0.35). */
  scoreThreshold?: number;
  /** Have the agent's LLM rewrite the task into a short search query before searching (default false). */
  rewriteQuery?: boolean;
}

export const DEFAULT_KNOWLEDGE_CONFIG = { resultsLimit: 3, scoreThreshold: 0.35 } as const;

/** Validates a knowledgeConfig option. */
export const knowledgeConfigSchema = z
  .object({
    resultsLimit: z.number().int().positive().optional(),
    scoreThreshold: z.number().min(0).max(1).optional(),
    rewriteQuery: z.boolean().optional(),
  })
  .strict();

/** A knowledgeSources option: instances of the knowledge source classes. */
export const knowledgeSourcesSchema = z.array(
  z.custom<BaseKnowledgeSource>(
    (v) => v instanceof BaseKnowledgeSource,
    "each knowledge source must be created with a knowledge source class, e.g. new StringKnowledgeSource({ content })",
  ),
);

/** Where crew knowledge (`knowledge/`) and agent knowledge (`agent_knowledge/`) live in the storage directory. */
export const KNOWLEDGE_DIRS = { crew: "knowledge", agent: "agent_knowledge" } as const;
const KNOWLEDGE_DB_FILE = "knowledge.db";

/** Options of Knowledge. */
export interface KnowledgeOptions {
  /** Names the collection in the store (the crew's name, the agent's role). */
  collectionName: string;
  sources: readonly BaseKnowledgeSource[];
  /** Adds vector and hybrid search; without one, knowledge is searched by keywords (FTS5, BM25). */
  embedder?: Embedder;
  /** The store to use; default SQLiteSearchStore in the storage directory (`knowledge/` for crews, `agent_knowledge/` for agents). */
  store?: SearchStore;
  /** Which default folder the store goes in (default "crew"). */
  owner?: keyof typeof KNOWLEDGE_DIRS;
}

/** A snippet found in knowledge. */
export type KnowledgeResult = SearchResult;

/**
 * A searchable body of knowledge: its sources are read, chunked and indexed once per instance (unchanged
 * chunks are not written or embedded again, chunks of changed or removed text are deleted), then queried.
 */
export class Knowledge {
  readonly collectionName: string;
  readonly sources: readonly BaseKnowledgeSource[];
  readonly store: SearchStore;
  private ingesting: Promise<void> | undefined;

  constructor(options: KnowledgeOptions) {
    this.collectionName = options.collectionName;
    this.sources = [...options.sources];
    const owner = options.owner ?? "crew";
    this.store =
      options.store ??
      new SQLiteSearchStore({
        path: storagePath(`${KNOWLEDGE_DIRS[owner]}/${KNOWLEDGE_DB_FILE}`),
        collection: options.collectionName,
        ...(options.embedder ? { embedder: options.embedder } : {}),
      });
  }

  /** Reads and indexes the sources, once; a failure is reported and the next call tries again. */
  ingest(): Promise<void> {
    this.ingesting ??= this.ingestSources().catch((error: unknown) => {
      this.ingesting = undefined;
      throw error;
    });
    return this.ingesting;
  }

  /**
   * The best snippets for any of `queries`: each is searched, results merged by chunk (best score kept),
   * ordered by score, and cut to `resultsLimit` (default 3) above `scoreThreshold` (default 0.35).
   */
  async query(queries: readonly string[], config: KnowledgeConfig = {}, source: CallSource = {}): Promise<KnowledgeResult[]> {
    const limit = config.resultsLimit ?? DEFAULT_KNOWLEDGE_CONFIG.resultsLimit;
    const scoreThreshold = config.scoreThreshold ?? DEFAULT_KNOWLEDGE_CONFIG.scoreThreshold;
    const texts = queries.filter((q) => q.trim() !== "");
    if (eventBus.hasListeners("knowledge_retrieval_started")) {
      eventBus.emit("knowledge_retrieval_started", { ...source, collectionName: this.collectionName, queries: texts });
    }
    await this.ingest();
    const best = new Map<string, KnowledgeResult>();
    for (const text of texts) {
      for (const result of await this.store.search(text, { limit, scoreThreshold })) {
        const seen = best.get(result.id);
        if (!seen || seen.score < result.score) best.set(result.id, result);
      }
    }
    const results = [...best.values()].sort((a, b) => b.score - a.score).slice(0, limit);
    if (eventBus.hasListeners("knowledge_retrieval_completed")) {
      eventBus.emit("knowledge_retrieval_completed", {
        ...source,
        collectionName: this.collectionName,
        queries: texts,
        retrievedKnowledge: results.map((r) => r.content),
      });
    }
    return results;
  }

  /** Removes everything indexed; the next query indexes the sources again. */
  async reset(): Promise<void> {
    await this.ingesting?.catch(() => undefined);
    this.ingesting = undefined;
    await this.store.reset();
  }

  /** Releases the store's files (the SQLite store's share of its connection); the next query opens them again. */
  async close(): Promise<void> {
    await this.store.close();
  }

  private async ingestSources(): Promise<void> {
    const started = performance.now();
    // One document per chunk, keyed by its source and position. Text given as a string is keyed by its
    // hash too, so two string sources never share ids. The collection belongs to this knowledge:
    // chunks of text that changed or left the sources are deleted.
    const current = new Set<string>();
    for (const knowledgeSource of this.sources) {
      const documents = (await knowledgeSource.load()).map((chunk) => ({
        id: `${sourceKey(knowledgeSource, chunk)}#${chunk.metadata.chunkIndex}`,
        content: chunk.content,
        metadata: toMetadata(chunk),
      }));
      await this.store.upsert(documents);
      for (const doc of documents) current.add(doc.id);
    }
    const stale = (await this.store.ids()).filter((id) => !current.has(id));
    if (stale.length > 0) await this.store.delete(stale);
    if (eventBus.hasListeners("knowledge_ingestion_completed")) {
      eventBus.emit("knowledge_ingestion_completed", {
        collectionName: this.collectionName,
        sources: this.sources.length,
        chunks: current.size,
        removedChunks: stale.length,
        durationMs: performance.now() - started,
      });
    }
  }
}

function sourceKey(source: BaseKnowledgeSource, chunk: KnowledgeChunk): string {
  return source instanceof BaseFileKnowledgeSource ? chunk.metadata.source : `${chunk.metadata.source}@${chunk.contentHash.slice(0, 16)}`;
}

/** Chunk metadata as store metadata: scalars kept, anything else as JSON text. */
function toMetadata(chunk: KnowledgeChunk): Record<string, MetadataValue> {
  const metadata: Record<string, MetadataValue> = { documentHash: chunk.contentHash };
  for (const [key, value] of Object.entries(chunk.metadata)) {
    metadata[key] = value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? value : JSON.stringify(value);
  }
  return metadata;
}

/** The text an agent's prompt gets from knowledge snippets (CrewAI's "Additional Information"). */
export function knowledgeContext(results: readonly KnowledgeResult[]): string {
  const snippets = results.map((r) => r.content.trim()).filter((text) => text !== "");
  return snippets.length === 0 ? "" : `\n\nAdditional Information: ${snippets.join("\n")}`;
}
