import type { BaseLLM } from "../llm/types.js";
import type { UsageMetrics } from "../llm/UsageMetrics.js";
import { StorageError } from "../storage/StorageError.js";
import { buildMemoryContext } from "./buildMemoryContext.js";
import { MemoryWriteError } from "./errors.js";
import type { LongTermMemory } from "./LongTermMemory.js";
import { recordTaskResult, type TaskResultRecord } from "./recordTaskResult.js";
import type { Memory, MemoryEventSource, MemoryItem, MemorySearchOptions, MemoryType, MetadataValue } from "./types.js";

/** How much memory goes into a prompt. */
export interface MemoryConfig {
  /** Items per memory (default 3). */
  limit?: number;
  /** Most tokens the memory section of a prompt takes (about 4 characters each; default 1000). */
  tokenBudget?: number;
  /** CrewAI's user memory on Mem0: `provider: "mem0"` with `config: { user_id, ... }` adds an ExternalMemory on Mem0. */
  provider?: "mem0";
  config?: Record<string, unknown>;
}

/** The memories of a crew, each present only when enabled. */
export interface MemorySet {
  short?: Memory | undefined;
  long?: LongTermMemory | undefined;
  entity?: Memory | undefined;
  external?: Memory | undefined;
}

const KINDS: MemoryType[] = ["short", "long", "entity", "external"];

/** The memories of a set that exist, by kind. */
export function enabledMemories(set: MemorySet): { kind: MemoryType; memory: Memory }[] {
  return KINDS.flatMap((kind) => {
    const memory = set[kind];
    return memory ? [{ kind, memory }] : [];
  });
}

/**
 * What an agent uses of its crew's memory during one kickoff: the memories (short-term scoped to the
 * kickoff), and how much of them goes into a prompt.
 */
export class KickoffMemory {
  readonly memories: MemorySet;
  // Task records still running (their evaluation call), awaited by settle().
  private readonly recording = new Set<Promise<TaskResultRecord>>();

  constructor(
    set: MemorySet,
    readonly runId: string,
    readonly config: MemoryConfig = {},
  ) {
    this.memories = { ...set, ...(set.short ? { short: scopeToRun(set.short, runId) } : {}) };
  }

  /** The memory section for a task, "" when nothing relevant is remembered. */
  async contextFor(query: string, source: MemoryEventSource): Promise<string> {
    return buildMemoryContext({
      query,
      ...this.memories,
      ...(this.config.limit !== undefined ? { limit: this.config.limit } : {}),
      ...(this.config.tokenBudget !== undefined ? { tokenBudget: this.config.tokenBudget } : {}),
      source,
    });
  }

  /** Saves what a tool returned to short-term memory (deferred; failures surface at flush). */
  async rememberObservation(text: string, metadata: Record<string, MetadataValue>): Promise<void> {
    await this.memories.short?.save(text, { ...metadata, type: "tool_observation" }).catch(() => undefined);
  }

  /**
   * Records a finished task in every memory (an evaluation by `llm` feeds long-term and entity memory).
   * Starts at once and does not hold up the caller: the evaluation call runs while the next task does,
   * so memory never adds an LLM round-trip to a task. `settle()` waits for every record started.
   */
  recordTask(input: { taskDescription: string; expectedOutput: string; output: string; agentRole: string; agentId?: string; taskId?: string; llm: BaseLLM; usage?: UsageMetrics; source: MemoryEventSource }): Promise<TaskResultRecord> {
    const record = recordTaskResult({ ...input, ...this.memories });
    this.recording.add(record);
    void record.finally(() => this.recording.delete(record));
    return record;
  }

  /** Resolves once every task record started has finished (recordTaskResult never rejects). */
  async settle(): Promise<void> {
    while (this.recording.size > 0) await Promise.all(this.recording);
  }

  /** Waits for the task records, then for every memory's deferred writes; resolves with the memories whose writes failed. */
  async flush(): Promise<{ kind: MemoryType; error: unknown }[]> {
    await this.settle();
    const enabled = enabledMemories(this.memories);
    const results = await Promise.allSettled(enabled.map(({ memory }) => memory.flush()));
    return results.flatMap((result, i) => (result.status === "rejected" ? [{ kind: enabled[i]!.kind, error: result.reason as unknown }] : []));
  }
}

/** `memory` seen through one run: saves carry `runId`, searches see only that run's items. */
export function scopeToRun(memory: Memory, runId: string): Memory {
  return {
    kind: memory.kind,
    save: (value: unknown, metadata: Record<string, MetadataValue> = {}) => memory.save(value, { ...metadata, runId }),
    search: (query: string, options: MemorySearchOptions = {}): Promise<MemoryItem[]> => memory.search(query, { ...options, filter: { ...options.filter, runId } }),
    reset: () => memory.reset(),
    flush: () => memory.flush(),
    close: () => memory.close(),
  };
}

// Causes already warned about in this process, by memory and cause.
const warnedCauses = new Set<string>();

/**
 * Prints the one warning line the README promises for memory writes that failed (besides their
 * memory_save_failed events): which memory, which file and what to do, once per memory and distinct
 * cause in a process, so a cause that repeats in every kickoff is not printed hundreds of times.
 */
export function warnUnsavedMemory(kind: MemoryType, error: unknown): void {
  const cause = error instanceof MemoryWriteError ? error.failures[0] : error;
  const key = cause instanceof StorageError ? `${kind}\0${cause.code}\0${cause.path}` : `${kind}\0${cause instanceof Error ? cause.message : String(cause)}`;
  if (warnedCauses.has(key)) return;
  warnedCauses.add(key);
  const message = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, " ").trim();
  process.emitWarning(`Memory not saved: ${message} (later failures of the same cause are reported as memory_save_failed events only)`, { code: "CREWTS_MEMORY" });
}
