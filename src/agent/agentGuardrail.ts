import type { z } from "zod";
import type { CallSource } from "../llm/types.js";
import type { UsageMetrics } from "../llm/UsageMetrics.js";
import type { Agent } from "./Agent.js";
import { AgentOutput } from "./AgentOutput.js";
import { GuardrailError } from "./errors.js";
import { checkGuardrail, guardrailPrompts, labelOf, type GuardrailResult, type NormalizedGuardrailResult, type ResolvedGuardrailOf } from "./guardrails.js";
import { llmGuardrail } from "./LLMGuardrail.js";

/** What an agent's guardrail is told besides the output: the agent, how many retries it has used, and the kickoff's usage. */
export interface AgentGuardrailContext {
  agent: Agent;
  retryCount: number;
  source: CallSource;
  /** The kickoff's token count (an LLM guardrail adds its own calls to it). */
  usage: UsageMetrics;
}

// Declared through a method so a guardrail for a typed answer still fits any agent (bivariant parameters).
type AgentGuardrailMethod<T> = {
  check(output: AgentOutput<T>, context: AgentGuardrailContext): GuardrailResult | Promise<GuardrailResult>;
}["check"];

/** A function that checks the AgentOutput of `agent.kickoff`; returns a GuardrailResult as a task's guardrail does. */
export type AgentGuardrailFunction<T = unknown> = AgentGuardrailMethod<T>;

/** An agent's guardrail: a function, or a rule in plain words that the agent's LLM judges (an LLM guardrail). */
export type AgentGuardrail<T = unknown> = AgentGuardrailFunction<T> | string;

type ResolvedAgentGuardrail = ResolvedGuardrailOf<AgentOutput, AgentGuardrailContext>;

/** How a kickoff makes an AgentOutput: `again` runs the agent anew with feedback, `fromRaw` rebuilds one from a new answer text. */
export interface GuardedKickoff<T> {
  again(feedback: string): Promise<AgentOutput<T>>;
  fromRaw(raw: string, previous: AgentOutput<T>): Promise<AgentOutput<T>>;
  outputSchema: z.ZodType | undefined;
  usage: UsageMetrics;
  source: CallSource;
}

/**
 * Applies the agent's guardrail to the answer of `agent.kickoff` (CrewAI's LiteAgent guardrail). The guardrail
 * receives the AgentOutput (raw, parsed, agentRole, usageMetrics, messages), as CrewAI's gets its LiteAgentOutput.
 * On failure the agent is asked again with the guardrail's error and its previous answer, up to
 * guardrailMaxRetries times; then GuardrailError names the agent, the guardrail and the last error.
 * CrewAI adds the error to the same conversation; here a retry is a new run of the request with the error
 * and the rejected answer as its context (as a task's guardrail retry), so earlier tool results are not kept.
 */
export async function enforceAgentGuardrail<T>(agent: Agent, first: AgentOutput<T>, kickoff: GuardedKickoff<T>): Promise<AgentOutput<T>> {
  const guardrail = resolveAgentGuardrail(agent);
  if (!guardrail) return first;
  const maxRetries = agent.options.guardrailMaxRetries ?? 3;
  let output = first;
  for (let retries = 0; ; retries++) {
    const context: AgentGuardrailContext = { agent, retryCount: retries, source: kickoff.source, usage: kickoff.usage };
    const result = await checkGuardrail(guardrail, output as AgentOutput, context);
    if (result.success) return applyResult(output, result, kickoff);
    const error = result.error ?? "";
    if (retries >= maxRetries) {
      // CrewAI's sentence first (users match on it), then which agent and guardrail, and what to do.
      throw new GuardrailError(
        `Agent's guardrail failed validation after ${retries} retries. Last error: ${error}. ` +
          `Agent: '${agent.role}'; guardrail: ${shorten(guardrail.label)}. ` +
          "Make the request or the agent's goal state the rule, or raise guardrailMaxRetries.",
        error,
        retries,
      );
    }
    output = await kickoff.again(guardrailPrompts.validationError(error, output.raw));
  }
}

// One resolved guardrail per options object: an LLM guardrail is built once, not per kickoff.
const resolved = new WeakMap<object, ResolvedAgentGuardrail>();

function resolveAgentGuardrail(agent: Agent): ResolvedAgentGuardrail | undefined {
  const given = agent.options.guardrail;
  if (given === undefined) return undefined;
  let guardrail = resolved.get(agent.options);
  if (!guardrail) {
    guardrail = typeof given === "string" ? { fn: llmGuardrail({ description: given }), label: given } : { fn: given, label: labelOf(given) };
    resolved.set(agent.options, guardrail);
  }
  return guardrail;
}

/** As a task's guardrail: a string replaces raw (parsed again), a schema-valid value replaces parsed, an AgentOutput replaces all. */
async function applyResult<T>(output: AgentOutput<T>, result: NormalizedGuardrailResult, kickoff: GuardedKickoff<T>): Promise<AgentOutput<T>> {
  const value = result.result;
  if (value instanceof AgentOutput) return value as AgentOutput<T>;
  if (typeof value === "string") return value === output.raw ? output : kickoff.fromRaw(value, output);
  const schema = kickoff.outputSchema;
  if (schema && value !== undefined && value !== null && value !== output.parsed && typeof value === "object") {
    const checked = schema.safeParse(value);
    if (checked.success) {
      return new AgentOutput<T>({ raw: JSON.stringify(checked.data), parsed: checked.data as T, agentRole: output.agentRole, usageMetrics: output.usageMetrics, messages: output.messages });
    }
  }
  return output;
}

function shorten(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 80 ? `${line.slice(0, 80)}...` : line;
}
