import { z } from "zod";
import { callLLM } from "../llm/callLLM.js";
import { parseJsonReply } from "../llm/jsonReply.js";
import { resolveLLM } from "../llm/resolveLLM.js";
import type { BaseLLM, CallSource } from "../llm/types.js";
import { addToUsageMetrics, type UsageMetrics } from "../llm/UsageMetrics.js";
import { entitySchema, type Entity } from "./Entity.js";
import { TaskEvaluationError } from "./errors.js";

/** What the evaluator says of a finished task (CrewAI's TaskEvaluation); the parts of a reply that were valid. */
export interface TaskEvaluation {
  /** 0 to 10; absent when the reply gave no valid quality. */
  quality?: number;
  /** How to do better at similar tasks. */
  suggestions: string[];
  /** Entities found in the output. */
  entities: Entity[];
  /** What the reply had that was invalid and was left out, e.g. "entities[1].name: must be a non-empty string"; absent when nothing was. */
  problems?: string[];
}

/** What `evaluateTask` needs. */
export interface EvaluateTaskInput {
  llm: string | BaseLLM;
  taskDescription: string;
  expectedOutput: string;
  output: string;
  agentRole: string;
  source?: CallSource;
  signal?: AbortSignal;
  /** Tokens of the evaluation call are added here (the evaluating agent's usage). */
  usage?: UsageMetrics;
}

// Any object with one of the evaluation's fields; each field is then checked on its own, so one bad
// part (a missing quality, an entity without a name) does not lose the others.
const replySchema = z
  .looseObject({})
  .refine((reply) => ["quality", "suggestions", "entities"].some((key) => key in reply), "has none of the fields quality, suggestions, entities");

const SYSTEM = "You review the work of AI agents. You answer with one JSON object only, no prose.";

/** The evaluation prompt: the task, the expected and the actual output, and the JSON to answer with. */
export function evaluationPrompt(input: Pick<EvaluateTaskInput, "taskDescription" | "expectedOutput" | "output" | "agentRole">): string {
  return [
    `An agent whose role is "${input.agentRole}" finished a task. Assess how well it did, so that similar tasks go better next time.`,
    "",
    `Task description:\n${input.taskDescription}`,
    "",
    `Expected output:\n${input.expectedOutput}`,
    "",
    `Actual output:\n${input.output}`,
    "",
    "Answer with a JSON object with these fields:",
    '- "quality": a number from 0 to 10 rating completeness, accuracy and overall quality against the expected output.',
    '- "suggestions": a list of short, concrete instructions that would improve the result of similar future tasks.',
    '- "entities": the people, organisations, places, products and concepts the output is about, each as',
    '  { "name": string, "type": string, "description": string, "relationships": [string] }; [] if none.',
    "",
    'Example: {"quality": 7, "suggestions": ["Cite a source for each figure"], "entities": [{"name": "Acme", "type": "organization", "description": "A maker of rockets", "relationships": ["supplies NASA"]}]}',
  ].join("\n");
}

/**
 * Asks the model, in one call, how well a task was done (CrewAI's TaskEvaluator): quality,
 * suggestions and entities. Keeps every valid part of the answer (see `problems` for what was left
 * out); throws a TaskEvaluationError when no part of it is valid.
 */
export async function evaluateTask(input: EvaluateTaskInput): Promise<TaskEvaluation> {
  const llm = resolveLLM(input.llm);
  const result = await callLLM(
    llm,
    [
      { role: "system", content: SYSTEM },
      { role: "user", content: evaluationPrompt(input) },
    ],
    { ...(input.source ? { source: input.source } : {}), ...(input.signal ? { signal: input.signal } : {}) },
  );
  if (input.usage) addToUsageMetrics(input.usage, result.usage);
  const parsed = parseJsonReply(result.text, replySchema);
  const evaluation = parsed.ok ? readEvaluation(parsed.value) : undefined;
  if (!evaluation || (evaluation.quality === undefined && evaluation.suggestions.length === 0 && evaluation.entities.length === 0)) {
    const reason = parsed.ok ? (evaluation?.problems ?? []).join("; ") || "it is empty" : parsed.error;
    throw new TaskEvaluationError(
      `The task evaluation by ${llm.model} is not the expected JSON ({ quality, suggestions, entities }): ${reason}. ` +
        "Nothing was saved to long-term or entity memory for this task; a model that follows JSON instructions better avoids this.",
      result.text,
    );
  }
  return evaluation;
}

/** The valid parts of a reply object, and what was wrong with the rest. */
function readEvaluation(reply: Record<string, unknown>): TaskEvaluation {
  const problems: string[] = [];
  const evaluation: TaskEvaluation = { suggestions: [], entities: [] };
  const quality = readQuality(reply.quality);
  if (typeof quality === "number") evaluation.quality = quality;
  else problems.push(quality.problem);
  for (const [index, item] of listOf(reply.suggestions).entries()) {
    if (typeof item !== "string") problems.push(`suggestions[${index}]: must be a string, got ${shown(item)}`);
    else if (item.trim() !== "") evaluation.suggestions.push(item.trim());
  }
  for (const [index, item] of listOf(reply.entities).entries()) {
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      problems.push(`entities[${index}]: must be an object { name, type, description, relationships }, got ${shown(item)}`);
      continue;
    }
    const entity = entitySchema.safeParse(item);
    if (entity.success) evaluation.entities.push({ ...entity.data, relationships: entity.data.relationships.filter((r) => r !== "") });
    else problems.push(...entity.error.issues.map((issue) => `entities[${index}]${issue.path.map((p) => `.${String(p)}`).join("")}: ${issue.message}`));
  }
  if (problems.length > 0) evaluation.problems = problems;
  return evaluation;
}

/** A quality clamped to 0..10 from a number or a numeric string, or why there is none. */
function readQuality(value: unknown): number | { problem: string } {
  if (value === undefined) return { problem: "quality: missing" };
  const number = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
  if (!Number.isFinite(number)) return { problem: `quality: must be a number from 0 to 10, got ${shown(value)}` };
  return Math.min(10, Math.max(0, number));
}

// A missing or null list is an empty one; a lone value stands for a list of one.
function listOf(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 80)}...` : text;
}
