import type { BaseLLM } from "../llm/types.js";
import type { UsageMetrics } from "../llm/UsageMetrics.js";
import { MemoryValueError, toError } from "./errors.js";
import { evaluateTask, type TaskEvaluation } from "./evaluateTask.js";
import type { LongTermMemory } from "./LongTermMemory.js";
import { emitSaveFailed } from "./memoryEvents.js";
import type { Memory, MemoryEventSource, MemoryType, MetadataValue } from "./types.js";

// The quality long-term memory gives a lesson that was not rated (as LongTermMemory does for a text lesson).
const UNRATED_QUALITY = 5;

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
  // A part of the evaluation that could not be saved: reported like a failed save.
  const unsaved = (kind: "long" | "entity", message: string): void => {
    if (!input[kind]) return;
    const error = new MemoryValueError(`${message}. The valid parts of the evaluation were saved; a model that follows JSON instructions better avoids this.`);
    failures.push({ kind, error });
    emitSaveFailed({ kind, value: input.output, metadata, source }, error);
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

  // Every valid part of the evaluation is saved; what is missing or was left out is reported, never dropped silently.
  const evaluationMetadata = { ...metadata, type: "task_evaluation" };
  const problems = evaluation.problems ?? [];
  if (evaluation.quality !== undefined || evaluation.suggestions.length > 0) {
    await save(
      "long",
      input.long,
      {
        taskDescription: input.taskDescription,
        expectedOutput: input.expectedOutput,
        agentRole: input.agentRole,
        // Suggestions without a rating are kept at long-term memory's neutral quality for unrated lessons.
        quality: evaluation.quality ?? UNRATED_QUALITY,
        suggestions: evaluation.suggestions,
      },
      evaluationMetadata,
    );
  } else {
    unsaved("long", `The task evaluation had no quality and no suggestions (${problems.join("; ")}), so no lesson was saved to long-term memory`);
  }
  if (evaluation.entities.length > 0) await save("entity", input.entity, evaluation.entities, { ...metadata, type: "entity" });
  const badEntities = problems.filter((p) => p.startsWith("entities"));
  if (badEntities.length > 0) unsaved("entity", `The task evaluation had invalid entities, which were not saved to entity memory (${badEntities.join("; ")})`);
  return { evaluation, failures };
}
