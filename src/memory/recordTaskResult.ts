import type { BaseLLM } from "../llm/types.js";
import type { UsageMetrics } from "../llm/UsageMetrics.js";
import { toError } from "./errors.js";
import { evaluateTask, type TaskEvaluation } from "./evaluateTask.js";
import type { LongTermMemory } from "./LongTermMemory.js";
import { emitSaveFailed } from "./memoryEvents.js";
import type { Memory, MemoryEventSource, MemoryType, MetadataValue } from "./types.js";

/** A finished task and the memories to record it in. */
export interface TaskResultInput {
  taskDescription: string;
  expectedOutput: string;
  output: string;
  agentRole: string;
  agentId?: string;
  taskId?: string;
  /** Evaluates the task when long-term or entity memory is on (long-term memory's own `llm` wins). */
  llm: string | BaseLLM;
  short?: Memory;
  long?: LongTermMemory;
  entity?: Memory;
  external?: Memory;
  source?: MemoryEventSource;
  signal?: AbortSignal;
  /** Tokens of the evaluation are added here. */
  usage?: UsageMetrics;
}

/** What recording did: the evaluation, if one was made, and what could not be saved. */
export interface TaskResultRecord {
  evaluation?: TaskEvaluation;
  failures: { kind: MemoryType; error: Error }[];
}

/**
 * Records a finished task (what CrewAI's agent does after each task): the output into short-term and
 * external memory, then one evaluation (quality, suggestions, entities) into long-term and entity memory.
 * Never throws: failures are returned and emitted as memory_save_failed. Resolves once the evaluation
 * is done; the writes stay queued until each memory's flush.
 */
export async function recordTaskResult(input: TaskResultInput): Promise<TaskResultRecord> {
  const failures: TaskResultRecord["failures"] = [];
  const source: MemoryEventSource = {
    ...input.source,
    agentRole: input.agentRole,
    ...(input.agentId === undefined ? {} : { agentId: input.agentId }),
    ...(input.taskId === undefined ? {} : { taskId: input.taskId }),
  };
  const metadata: Record<string, MetadataValue> = {
    type: "task_output",
    agentRole: input.agentRole,
    task: input.taskDescription,
    ...(input.agentId === undefined ? {} : { agentId: input.agentId }),
    ...(input.taskId === undefined ? {} : { taskId: input.taskId }),
  };
  const save = async (kind: MemoryType, memory: Memory | undefined, value: unknown, meta: Record<string, MetadataValue>) => {
    if (!memory) return;
    try {
      await memory.save(value, meta);
    } catch (error) {
      // save rejects only for a value the memory cannot take; it emitted nothing, so say it here.
      failures.push({ kind, error: toError(error) });
      emitSaveFailed({ kind, value: typeof value === "string" ? value : JSON.stringify(value), metadata: meta, source }, error);
    }
  };

  await save("short", input.short, input.output, metadata);
  await save("external", input.external, input.output, metadata);
  if (!input.long && !input.entity) return { failures };

  let evaluation: TaskEvaluation;
  try {
    evaluation = await evaluateTask({
      llm: input.long?.llm ?? input.llm,
      taskDescription: input.taskDescription,
      expectedOutput: input.expectedOutput,
      output: input.output,
      agentRole: input.agentRole,
      source,
      ...(input.signal ? { signal: input.signal } : {}),
      ...(input.usage ? { usage: input.usage } : {}),
    });
  } catch (error) {
    const failure = toError(error);
    for (const kind of ["long", "entity"] as const) {
      if (!input[kind]) continue;
      failures.push({ kind, error: failure });
      emitSaveFailed({ kind, value: input.output, metadata, source }, failure);
    }
    return { failures };
  }

  const evaluationMetadata = { ...metadata, type: "task_evaluation" };
  await save(
    "long",
    input.long,
    {
      taskDescription: input.taskDescription,
      expectedOutput: input.expectedOutput,
      agentRole: input.agentRole,
      quality: evaluation.quality,
      suggestions: evaluation.suggestions,
    },
    evaluationMetadata,
  );
  if (evaluation.entities.length > 0) await save("entity", input.entity, evaluation.entities, { ...metadata, type: "entity" });
  return { evaluation, failures };
}
