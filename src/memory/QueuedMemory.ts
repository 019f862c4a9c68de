import { performance } from "node:perf_hooks";
import { MemoryWriteError } from "./errors.js";
import { emitQueryCompleted, emitQueryFailed, emitQueryStarted, emitSaveCompleted, emitSaveFailed, emitSaveStarted, sourceFromMetadata, type SaveEventInfo } from "./memoryEvents.js";
import { rankItems, type ResolvedScoring } from "./scoring.js";
import { DEFAULT_MEMORY_LIMIT, DEFAULT_SCORE_THRESHOLD, type Memory, type MemoryItem, type MemorySearchOptions, type MemoryType, type MetadataValue } from "./types.js";
import { WriteQueue } from "./WriteQueue.js";

/** How many candidates per requested item are fetched from the store before re-ranking. */
export const CANDIDATES_PER_ITEM = 4;

/** A record ready to write, with what events say about the save it came from. */
export interface QueuedEntry<R> {
  record: R;
  info: SaveEventInfo;
  queuedAt: number;
}

/** What a store search asks for: more candidates than the caller's limit, to re-rank. */
export interface CandidateQuery {
  limit: number;
  scoreThreshold: number;
  filter: Record<string, MetadataValue> | undefined;
  signal: AbortSignal | undefined;
}

/** A found item before ranking. */
export type Candidate = Omit<MemoryItem, "score">;

/**
 * The shared behaviour of every memory: deferred, batched writes with save events, searches that wait
 * for them and re-rank candidates by combined score, flush/close that report failed writes.
 * A memory says how a value becomes a record, how records are written and how candidates are found.
 */
export abstract class QueuedMemory<R> implements Memory {
  abstract readonly kind: MemoryType;
  /** Whether items of equal content are one (only the best-scored is returned). */
  protected readonly uniqueContent: boolean = false;
  private readonly queue: WriteQueue<QueuedEntry<R>>;

  protected constructor(
    protected readonly scoring: ResolvedScoring,
    batchSize?: number,
  ) {
    this.queue = new WriteQueue(
      (batch) => this.writeRecords(batch.map((entry) => entry.record)),
      {
        onWritten: (entry) => emitSaveCompleted(entry.info, Math.round(performance.now() - entry.queuedAt)),
        onFailed: (entry, error) => emitSaveFailed(entry.info, error),
      },
      batchSize,
    );
  }

  async save(value: unknown, metadata: Record<string, MetadataValue> = {}): Promise<void> {
    const records = this.toRecords(value, { ...metadata });
    const source = sourceFromMetadata(metadata);
    for (const { record, text } of records) {
      const info: SaveEventInfo = { kind: this.kind, value: text, metadata, source };
      emitSaveStarted(info);
      this.queue.enqueue({ record, info, queuedAt: performance.now() });
    }
  }

  async search(query: string, options: MemorySearchOptions = {}): Promise<MemoryItem[]> {
    await this.queue.settle();
    const limit = options.limit ?? DEFAULT_MEMORY_LIMIT;
    const scoreThreshold = options.scoreThreshold ?? DEFAULT_SCORE_THRESHOLD;
    const info = { kind: this.kind, query, limit, scoreThreshold, source: options.source ?? {} };
    emitQueryStarted(info);
    const started = performance.now();
    try {
      options.signal?.throwIfAborted();
      const candidates = await this.findCandidates(query, {
        limit: Math.max(limit * CANDIDATES_PER_ITEM, limit),
        scoreThreshold,
        filter: options.filter,
        signal: options.signal,
      });
      const items = rankItems(candidates, this.scoring, limit, { unique: this.uniqueContent });
      emitQueryCompleted(info, items.length, Math.round(performance.now() - started));
      return items;
    } catch (error) {
      emitQueryFailed(info, error);
      throw error;
    }
  }

  async reset(): Promise<void> {
    await this.queue.settle();
    await this.clear();
  }

  async flush(): Promise<void> {
    await this.queue.settle();
    const failures = this.queue.takeFailures();
    if (failures.length > 0) throw new MemoryWriteError(this.kind, failures);
  }

  /** Waits for the deferred writes, releases the memory's files (reopened on next use), then reports failed writes. */
  async close(): Promise<void> {
    await this.queue.settle();
    await this.release();
    const failures = this.queue.takeFailures();
    if (failures.length > 0) throw new MemoryWriteError(this.kind, failures);
  }

  /** The records one save makes, each with its text for events; throws a MemoryValueError for a value it cannot store. */
  protected abstract toRecords(value: unknown, metadata: Record<string, MetadataValue>): { record: R; text: string }[];
  /** Writes a batch of records at once. */
  protected abstract writeRecords(records: R[]): Promise<void>;
  protected abstract findCandidates(query: string, options: CandidateQuery): Promise<Candidate[]>;
  /** Removes everything stored. */
  protected abstract clear(): Promise<void>;
  /** Closes files and connections. */
  protected abstract release(): Promise<void>;
}
