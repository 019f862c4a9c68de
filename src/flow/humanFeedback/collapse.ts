import type { BaseLLM } from "../../llm/types.js";
import { HumanFeedbackError } from "./types.js";

/**
 * Maps free-text feedback to one of `emit`: empty feedback gives `defaultOutcome`; an outcome typed
 * as is (any case) needs no model; otherwise the model picks, and an answer outside `emit` falls
 * back to `defaultOutcome` or fails with a HumanFeedbackError.
 */
export async function collapseToOutcome(
  feedback: string,
  emit: readonly string[],
  llm: BaseLLM | undefined,
  defaultOutcome: string | undefined,
  methodName: string,
): Promise<string> {
  const text = feedback.trim();
  if (text === "" && defaultOutcome !== undefined) return defaultOutcome;
  const typed = matchOutcome(text, emit);
  if (typed !== undefined) return typed;
  if (!llm) throw new HumanFeedbackError(`@humanFeedback on "${methodName}" has emit but no llm to map feedback to an outcome; pass llm: "provider/model" or a BaseLLM.`);
  const reply = await llm.call([
    {
      role: "system",
      content: "You classify a person's feedback on a piece of work into exactly one of the given outcomes. Answer with the outcome only, spelled exactly as listed.",
    },
    { role: "user", content: `Outcomes: ${emit.map((o) => JSON.stringify(o)).join(", ")}\n\nFeedback:\n${text === "" ? "(no feedback given)" : text}\n\nOutcome:` },
  ]);
  const answer = reply.text.trim();
  const mapped = matchOutcome(answer.replace(/^["'`*\s]+|["'`*.!\s]+$/g, ""), emit) ?? onlyMentioned(answer, emit);
  if (mapped !== undefined) return mapped;
  if (defaultOutcome !== undefined) return defaultOutcome;
  throw new HumanFeedbackError(
    `@humanFeedback on "${methodName}": the model answered ${JSON.stringify(answer.slice(0, 200))}, which is not one of ${emit.map((o) => JSON.stringify(o)).join(", ")}. ` +
      "Set defaultOutcome to route such answers, or use a model that follows the instruction.",
  );
}

function matchOutcome(text: string, emit: readonly string[]): string | undefined {
  const lower = text.toLowerCase();
  return emit.find((o) => o.toLowerCase() === lower);
}

/** The one outcome a longer answer names as a word ("The outcome is approved."); undefined when none or several. */
function onlyMentioned(answer: string, emit: readonly string[]): string | undefined {
  const lower = answer.toLowerCase();
  const found = emit.filter((o) => new RegExp(`(^|[^\\w])${o.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}([^\\w]|$)`).test(lower));
  return found.length === 1 ? found[0] : undefined;
}
