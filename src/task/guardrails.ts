import type { Agent } from "../agent/Agent.js";
import type { GuardrailResult, ResolvedGuardrailOf } from "../agent/guardrails.js";
import type { CallSource } from "../llm/types.js";
import type { TaskOutput } from "./TaskOutput.js";

// The checking itself is shared with the agent's own guardrail (src/agent/guardrails.ts); what a task's
// guardrail receives is defined here.
export { checkGuardrail, labelOf, normalizeGuardrailResult, type GuardrailResult, type NormalizedGuardrailResult } from "../agent/guardrails.js";

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

/** A task's guardrail ready to run: the function and a label for events and errors. */
export interface ResolvedGuardrail extends ResolvedGuardrailOf<TaskOutput, GuardrailContext> {
  fn: GuardrailFunction;
}
