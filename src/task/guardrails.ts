import type { Agent } from "../agent/Agent.js";
import { eventBus } from "../events/EventBus.js";
import type { CallSource } from "../llm/types.js";
import type { TaskOutput } from "./TaskOutput.js";

/** What a guardrail returns: CrewAI's `[ok, resultOrError]` tuple, or `{ success, result?, error? }`. */
export type GuardrailResult = [boolean, unknown] | readonly [boolean, unknown] | { success: boolean; result?: unknown; error?: string };

/** What a task tells a guardrail besides the output: who produced it and how many retries this guardrail has used. */
export interface GuardrailContext {
  agent: Agent;
  taskId: string;
  retryCount: number;
  source: CallSource;
}

// Declared through a method so a guardrail for a typed output still fits where any task is expected
// (method parameters are bivariant; a plain function type would make Task<S> invariant in S).
type GuardrailMethod<T> = {
  check(output: TaskOutput<T>, context: GuardrailContext): GuardrailResult | Promise<GuardrailResult>;
}["check"];

/** A function that checks a task's output; the second argument is optional to use. */
export type GuardrailFunction<T = unknown> = GuardrailMethod<T>;

/** A guardrail: a function, or a string describing a rule that the agent's LLM judges (an LLM guardrail). */
export type Guardrail<T = unknown> = GuardrailFunction<T> | string;

/** A guardrail result in one shape. */
export interface NormalizedGuardrailResult {
  success: boolean;
  result?: unknown;
  error?: string;
}

/** A guardrail ready to run: the function and a label for events and errors. */
export interface ResolvedGuardrail {
  fn: GuardrailFunction;
  /** The rule text of an LLM guardrail, or the source of a function guardrail (CrewAI reports the same). */
  label: string;
}

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
export async function checkGuardrail(guardrail: ResolvedGuardrail, output: TaskOutput, context: GuardrailContext): Promise<NormalizedGuardrailResult> {
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
export function labelOf(fn: GuardrailFunction): string {
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
