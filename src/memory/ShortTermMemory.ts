import { randomUUID } from "node:crypto";
import type { Embedder } from "../knowledge/embedders/Embedder.js";
import type { EmbedderSpec } from "../knowledge/embedders/resolveEmbedder.js";
import type { SearchDocument, SearchStore } from "../knowledge/store/SearchStore.js";
import { memoryStore, memoryText, storeCandidates, storedMetadata } from "./memoryText.js";
import { QueuedMemory, type Candidate, type CandidateQuery } from "./QueuedMemory.js";
import { resolveScoring, SHORT_TERM_HALF_LIFE_DAYS, type MemoryScoring } from "./scoring.js";
import type { MetadataValue } from "./types.js";

/** File of short-term memory in the storage directory (`crewts reset-memories -s` deletes it). */
export const SHORT_TERM_MEMORY_DB_FILE = "short_term_memory.db";

/** Options of ShortTermMemory. */
export interface ShortTermMemoryOptions {
  /** Enables hybrid (keyword + vector) search; without it, keyword search (FTS5, BM25). */
  embedder?: EmbedderSpec | Embedder;
  /** Where items live; default a SQLiteSearchStore (collection "short_term") on `path`. */
  store?: SearchStore;
  /** Database file; default short_term_memory.db in the storage directory. */
  path?: string;
  /** Ranking; the default half-life is one hour. */
  scoring?: MemoryScoring;
}

/**
 * What happened in the current run: task outputs and tool observations, with agent and task metadata.
 * After `startRun(id)`, items are saved with that runId and searches see only that run's items.
 */
export class ShortTermMemory extends QueuedMemory<SearchDocument> {
  readonly kind = "short" as const;
  private readonly store: SearchStore;
  private runId: string | undefined;

  constructor(options: ShortTermMemoryOptions = {}) {
    super(resolveScoring(options.scoring, SHORT_TERM_HALF_LIFE_DAYS));
    this.store = memoryStore(options, SHORT_TERM_MEMORY_DB_FILE, "short_term");
  }

  /** Scopes the memory to a run: later saves carry `runId` and searches return only that run's items. */
  startRun(runId: string): void {
    this.runId = runId;
  }

  /** The run started last, if any. */
  get currentRunId(): string | undefined {
    return this.runId;
  }

  protected toRecords(value: unknown, metadata: Record<string, MetadataValue>): { record: SearchDocument; text: string }[] {
    const content = memoryText(value, "short-term memory");
    const stored = storedMetadata(this.runId === undefined ? metadata : { ...metadata, runId: this.runId });
    return [{ record: { id: randomUUID(), content, metadata: stored }, text: content }];
  }

  protected async writeRecords(records: SearchDocument[]): Promise<void> {
    await this.store.upsert(records);
  }

  protected async findCandidates(query: string, options: CandidateQuery): Promise<Candidate[]> {
    const filter = this.runId === undefined ? options.filter : { ...options.filter, runId: this.runId };
    return storeCandidates(this.store, query, { ...options, filter });
  }

  protected async clear(): Promise<void> {
    await this.store.reset();
  }

  protected async release(): Promise<void> {
    await this.store.close();
  }
}
