import { z } from "zod";
import { callLLM } from "../llm/callLLM.js";
import { resolveLLM } from "../llm/resolveLLM.js";
import type { BaseLLM, CallSource } from "../llm/types.js";
import { addToUsageMetrics, type UsageMetrics } from "../llm/UsageMetrics.js";
import type { TokenUsage } from "../llm/types.js";
import type { Agent } from "./Agent.js";
import { guardrailPrompts } from "./guardrails.js";
import { convertToSchema } from "./OutputConverter.js";

/** The verdict an LLM guardrail asks the model for (CrewAI's LLMGuardrailResult). */
export const llmGuardrailVerdictSchema = z.object({
  valid: z.boolean().describe("Whether the task output complies with the guardrail"),
  feedback: z.string().nullish().describe("What is wrong with the task output when it is not valid"),
});

/** Options of an LLM guardrail. */
export interface LLMGuardrailOptions {
  /** The rule the output must follow, in plain words. */
  description: string;
  /** The judge; default: the LLM of the agent that did the task. */
  llm?: BaseLLM | string;
}

/** What an LLM guardrail reads of the output it judges (a task's TaskOutput or a kickoff's AgentOutput). */
interface JudgedOutput {
  raw: string;
}

/** What an LLM guardrail needs of its check's context: the judge by default, and where its tokens are counted. */
interface JudgeContext {
  agent: Pick<Agent, "llm" | "usageMetrics">;
  source: CallSource;
  /** Also counted here (an agent kickoff's usage), besides the agent's. */
  usage?: UsageMetrics;
}

/**
 * An LLM guardrail as a guardrail function, with the rule text kept for events and errors. It fits both
 * a task's guardrail and an agent's (it reads only the output's raw text).
 */
export type LLMGuardrailFunction = ((output: JudgedOutput, context: JudgeContext) => Promise<[boolean, unknown]>) & { readonly description: string };

/**
 * Builds a guardrail that asks an LLM whether the output follows `description` (what a string guardrail
 * becomes). Its tokens are counted in the usage of the agent that did the task (and of its kickoff).
 */
export function llmGuardrail(options: LLMGuardrailOptions): LLMGuardrailFunction {
  const { description } = options;
  const fixedLLM = options.llm === undefined ? undefined : resolveLLM(options.llm);
  const check = async (output: JudgedOutput, context: JudgeContext): Promise<[boolean, unknown]> => {
    try {
      return await judge(fixedLLM ?? context.agent.llm, output, description, context);
    } catch (error) {
      // As CrewAI: whatever goes wrong while judging (the model call fails, the verdict is junk) counts as
      // a failed check, so the task is run again with the reason. Only a cancelled run stops here.
      if (isAbort(error)) throw error;
      return [false, `Error while validating the task output: ${error instanceof Error ? error.message : String(error)}`];
    }
  };
  return Object.assign(check, { description });
}

/** Asks `llm` whether `output` follows `description`; throws when no verdict can be had. */
async function judge(llm: BaseLLM, output: JudgedOutput, description: string, context: JudgeContext): Promise<[boolean, unknown]> {
  const response = await callLLM(
    llm,
    [
      { role: "system", content: guardrailPrompts.guardrailSystem },
      { role: "user", content: guardrailPrompts.guardrailCheck(output.raw, description) },
    ],
    { source: context.source },
  );
  count(context, response.usage);
  const verdict = await convertToSchema(response.text, llmGuardrailVerdictSchema, { llm, maxAttempts: 3, source: context.source });
  count(context, verdict.usage);
  if (verdict.parsed.valid) return [true, output.raw];
  return [false, verdict.parsed.feedback?.trim() || `the output does not comply with the guardrail: ${description}`];
}

function count(context: JudgeContext, spent: TokenUsage | UsageMetrics): void {
  addToUsageMetrics(context.agent.usageMetrics, spent);
  if (context.usage) addToUsageMetrics(context.usage, spent);
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "KickoffAbortedError");
}
