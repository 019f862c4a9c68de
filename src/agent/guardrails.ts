import { eventBus } from "../events/EventBus.js";
import type { CallSource } from "../llm/types.js";

// The guardrail machinery tasks and agents share: what a guardrail returns, how it is checked (with its
// events), and the texts sent to a model. The task's and the agent's guardrail types live with them.

/** What a guardrail returns: CrewAI's `[ok, resultOrError]` tuple, or `{ success, result?, error? }`. */
export type GuardrailResult = [boolean, unknown] | readonly [boolean, unknown] | { success: boolean; result?: unknown; error?: string };

/** A guardrail result in one shape. */
export interface NormalizedGuardrailResult {
  success: boolean;
  result?: unknown;
  error?: string;
}

/** What every guardrail check is told besides the output: how many retries it has used, and who is running. */
export interface GuardrailCheckContext {
  retryCount: number;
  source: CallSource;
}

/** A guardrail ready to run on outputs of type O: the function and a label for events and errors. */
export interface ResolvedGuardrailOf<O, C extends GuardrailCheckContext> {
  fn: (output: O, context: C) => unknown;
  /** The rule text of an LLM guardrail, or the source of a function guardrail (CrewAI reports the same). */
  label: string;
}

/** Texts a guardrail sends to a model, or adds to the agent's prompt when it asks again. */
export const guardrailPrompts = {
  validationError: (error: string, previousOutput: string): string =>
    `### Your previous answer did not pass validation: ${error}\n\n` +
    `### Your previous answer:\n${previousOutput}\n\n` +
    "Answer again, and this time fix the problem named above.",

  guardrailSystem:
    "You are an expert at checking whether the output of a task complies with a rule (a guardrail). " +
    "You judge only; you never rewrite the output.",

  guardrailCheck: (output: string, guardrail: string): string =>
    "Check whether the task result below complies with the guardrail.\n\n" +
    `Task result:\n${output}\n\n` +
    `Guardrail:\n${guardrail}\n\n` +
    "What to do:\n" +
    "- Decide whether the task result complies with the guardrail.\n" +
    "- If it does not, say clearly what is wrong (for example by how much it breaks the rule, or which part fails).\n" +
    "- Point out problems only; do not propose corrections.\n" +
    "- If it complies, say that it is valid.\n\n" +
    'Reply with one JSON object only: {"valid": true or false, "feedback": "your explanation"}',
} as const;

/** Checks the shape of what a guardrail returned and brings it into one form; throws a clear error on a wrong shape. */
export function normalizeGuardrailResult(value: unknown, label: string): NormalizedGuardrailResult {
  if (Array.isArray(value)) {
    const [success, data] = value as unknown[];
    if (value.length !== 2 || typeof success !== "boolean") {
      throw new TypeError(wrongShape(label, value));
    }
    return success ? { success, result: data } : { success, error: errorText(data) };
  }
  if (typeof value === "object" && value !== null && typeof (value as { success?: unknown }).success === "boolean") {
    const r = value as { success: boolean; result?: unknown; error?: unknown };
    if (r.success) return { success: true, result: r.result };
    return { success: false, error: errorText(r.error) };
  }
  throw new TypeError(wrongShape(label, value));
}

/** Runs one guardrail check and emits llm_guardrail_started / llm_guardrail_completed around it. */
export async function checkGuardrail<O, C extends GuardrailCheckContext>(guardrail: ResolvedGuardrailOf<O, C>, output: O, context: C): Promise<NormalizedGuardrailResult> {
  const { source, retryCount } = context;
  if (eventBus.hasListeners("llm_guardrail_started")) {
    eventBus.emit("llm_guardrail_started", { ...source, guardrail: guardrail.label, retryCount });
  }
  let result: NormalizedGuardrailResult;
  try {
    result = normalizeGuardrailResult(await guardrail.fn(output, context), guardrail.label);
  } catch (error) {
    if (eventBus.hasListeners("llm_guardrail_completed")) {
      eventBus.emit("llm_guardrail_completed", { ...source, guardrail: guardrail.label, success: false, error: messageOf(error), retryCount });
    }
    throw error;
  }
  if (eventBus.hasListeners("llm_guardrail_completed")) {
    eventBus.emit("llm_guardrail_completed", {
      ...source,
      guardrail: guardrail.label,
      success: result.success,
      ...(result.success ? { result: result.result } : { error: result.error ?? "" }),
      retryCount,
    });
  }
  return result;
}

/** A short label for a function guardrail: its name, else its source, trimmed. */
export function labelOf(fn: (...args: never[]) => unknown): string {
  const described = (fn as { description?: unknown }).description;
  if (typeof described === "string") return described;
  const source = String(fn).trim();
  return source.length > 300 ? `${source.slice(0, 300)}...` : source;
}

function errorText(data: unknown): string {
  if (typeof data === "string" && data.trim()) return data;
  if (data instanceof Error) return data.message;
  if (data === undefined || data === null || data === "") return "the guardrail rejected the output without giving a reason";
  return show(data);
}

function show(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

function wrongShape(label: string, value: unknown): string {
  const shown = show(value);
  return (
    `Guardrail ${label.length > 80 ? `${label.slice(0, 80)}...` : label} returned ${shown.slice(0, 200)}, which is not a guardrail result. ` +
    "Return [true, result] or [false, \"what is wrong\"], or { success: boolean, result?, error? }."
  );
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
