import { z } from "zod";
import { callLLM } from "../llm/callLLM.js";
import { parseJsonReply } from "../llm/jsonReply.js";
import { resolveLLM } from "../llm/resolveLLM.js";
import type { BaseLLM, CallSource } from "../llm/types.js";
import { addToUsageMetrics, type UsageMetrics } from "../llm/UsageMetrics.js";
import { entitySchema, type Entity } from "./Entity.js";
import { TaskEvaluationError } from "./errors.js";

/** What the evaluator says of a finished task (CrewAI's TaskEvaluation). */
export interface TaskEvaluation {
  /** 0 to 10. */
  quality: number;
  /** How to do better at similar tasks. */
  suggestions: string[];
  /** Entities found in the output. */
  entities: Entity[];
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

const evaluationSchema = z.object({
  quality: z.coerce.number().refine(Number.isFinite, "must be a number from 0 to 10").transform((q) => Math.min(10, Math.max(0, q))),
  suggestions: z.array(z.string()).default([]).transform((list) => list.map((s) => s.trim()).filter((s) => s !== "")),
  entities: z
    .array(entitySchema)
    .default([])
    .transform((list) => list.map((e) => ({ ...e, relationships: e.relationships.filter((r) => r !== "") }))),
});

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
 * suggestions and entities. Throws a TaskEvaluationError when the answer is not that JSON.
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
  const parsed = parseJsonReply(result.text, evaluationSchema);
  if (!parsed.ok) {
    throw new TaskEvaluationError(
      `The task evaluation by ${llm.model} is not the expected JSON ({ quality, suggestions, entities }): ${parsed.error}. ` +
        "Nothing was saved to long-term or entity memory for this task; a model that follows JSON instructions better avoids this.",
      result.text,
    );
  }
  return parsed.value;
}
