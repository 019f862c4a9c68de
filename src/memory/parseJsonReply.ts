import { jsonrepair } from "jsonrepair";
import type { z } from "zod";

/** The parsed value, or why no JSON in the text fits the schema. */
export type JsonReply<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * Finds JSON for `schema` in a model's reply: the whole text, a fenced block, or the outermost braces,
 * each repaired (jsonrepair) when slightly broken. The same steps as the agent's OutputConverter.
 */
export function parseJsonReply<S extends z.ZodType>(text: string, schema: S): JsonReply<z.output<S>> {
  let lastError = "the reply contains no JSON";
  for (const candidate of candidates(text)) {
    let value: unknown;
    try {
      value = JSON.parse(candidate);
    } catch {
      try {
        value = JSON.parse(jsonrepair(candidate));
      } catch {
        continue;
      }
    }
    const checked = schema.safeParse(value);
    if (checked.success) return { ok: true, value: checked.data };
    lastError = checked.error.issues.map((i) => `${i.path.length > 0 ? i.path.join(".") : "(root)"}: ${i.message}`).join("; ");
  }
  return { ok: false, error: lastError };
}

function* candidates(text: string): Generator<string> {
  const trimmed = text.trim();
  if (trimmed) yield trimmed;
  for (const match of trimmed.matchAll(/```(?:json|JSON)?\s*\n?([\s\S]*?)```/g)) if (match[1]) yield match[1].trim();
  const open = trimmed.indexOf("{");
  const close = trimmed.lastIndexOf("}");
  if (open >= 0 && close > open) yield trimmed.slice(open, close + 1);
}
