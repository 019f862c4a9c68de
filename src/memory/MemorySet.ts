import type { BaseLLM } from "../llm/types.js";
import type { UsageMetrics } from "../llm/UsageMetrics.js";
import { buildMemoryContext } from "./buildMemoryContext.js";
import type { LongTermMemory } from "./LongTermMemory.js";
import { recordTaskResult, type TaskResultRecord } from "./recordTaskResult.js";
import type { Memory, MemoryEventSource, MemoryItem, MemorySearchOptions, MemoryType, MetadataValue } from "./types.js";

/** How much memory goes into a prompt. */
export interface MemoryConfig {
  /** Items per memory (default 3). */
  limit?: number;
  /** Most tokens the memory section of a prompt takes (about 4 characters each; default 1000). */
  tokenBudget?: number;
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

  /** Records a finished task in every memory (an evaluation by `llm` feeds long-term and entity memory). */
  recordTask(input: { taskDescription: string; expectedOutput: string; output: string; agentRole: string; agentId?: string; taskId?: string; llm: BaseLLM; usage?: UsageMetrics; source: MemoryEventSource }): Promise<TaskResultRecord> {
    return recordTaskResult({ ...input, ...this.memories });
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
