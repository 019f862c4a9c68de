import { z } from "zod";
import { ConverterError, convertToSchema } from "../agent/OutputConverter.js";
import { callLLM } from "../llm/callLLM.js";
import { resolveLLM } from "../llm/resolveLLM.js";
import type { BaseLLM } from "../llm/types.js";
import { addToUsageMetrics } from "../llm/UsageMetrics.js";
import type { GuardrailContext, GuardrailFunction } from "./guardrails.js";
import { taskPrompts } from "./taskPrompts.js";
import type { TaskOutput } from "./TaskOutput.js";

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

/** An LLM guardrail as a guardrail function, with the rule text kept for events and errors. */
export type LLMGuardrailFunction = GuardrailFunction & { readonly description: string };

/**
 * Builds a guardrail that asks an LLM whether the output follows `description` (what a string guardrail
 * becomes). Its tokens are counted in the usage of the agent that did the task.
 */
export function llmGuardrail(options: LLMGuardrailOptions): LLMGuardrailFunction {
  const { description } = options;
  const fixedLLM = options.llm === undefined ? undefined : resolveLLM(options.llm);
  const check = async (output: TaskOutput, context: GuardrailContext): Promise<[boolean, unknown]> => {
    const llm = fixedLLM ?? context.agent.llm;
    const response = await callLLM(
      llm,
      [
        { role: "system", content: taskPrompts.guardrailSystem },
        { role: "user", content: taskPrompts.guardrailCheck(output.raw, description) },
      ],
      { source: context.source },
    );
    addToUsageMetrics(context.agent.usageMetrics, response.usage);
    try {
      const verdict = await convertToSchema(response.text, llmGuardrailVerdictSchema, { llm, maxAttempts: 3, source: context.source });
      addToUsageMetrics(context.agent.usageMetrics, verdict.usage);
      if (verdict.parsed.valid) return [true, output.raw];
      return [false, verdict.parsed.feedback?.trim() || `the output does not comply with the guardrail: ${description}`];
    } catch (error) {
      // As CrewAI: a judge that cannot give a verdict counts as a failed check, so the agent gets another try.
      if (error instanceof ConverterError) return [false, `Error while validating the task output: ${error.message}`];
      throw error;
    }
  };
  return Object.assign(check, { description });
}
