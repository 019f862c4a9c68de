import { jsonrepair } from "jsonrepair";
import type { z } from "zod";

/** The parsed value, or why no JSON in the text fits the schema. */
export type JsonReply<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * Finds JSON for `schema` in a model's reply without any LLM call: the whole text, then each fenced block,
 * then the outermost braces or brackets, each repaired (jsonrepair) when slightly broken.
 */
export function parseJsonReply<S extends z.ZodType>(text: string, schema: S): JsonReply<z.output<S>> {
  let lastError = "the text contains no JSON";
  for (const candidate of jsonCandidates(text)) {
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
    lastError = formatIssues(checked.error);
  }
  return { ok: false, error: lastError };
}

function* jsonCandidates(text: string): Generator<string> {
  const trimmed = text.trim();
  if (trimmed) yield trimmed;
  for (const m of trimmed.matchAll(/```(?:json|JSON)?\s*\n?([\s\S]*?)```/g)) if (m[1]) yield m[1].trim();
  const open = trimmed.search(/[{[]/);
  if (open >= 0) {
    const close = trimmed.lastIndexOf(trimmed[open] === "{" ? "}" : "]");
    if (close > open) yield trimmed.slice(open, close + 1);
  }
}

function formatIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join(".") : "(root)"}: ${i.message}`).join("; ");
}
