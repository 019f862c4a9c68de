import { jsonrepair } from "jsonrepair";
import type { z } from "zod";

/** The parsed value, or why no JSON in the text fits the schema. */
export type JsonReply<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * Finds JSON for `schema` in a model's reply without any LLM call: the whole text, then each fenced block,
 * then the outermost braces and the outermost brackets, each repaired (jsonrepair) when slightly broken.
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
  // The outermost object and the outermost array, the one that opens first tried first: a reply like
  // "Quality [1-10]: {...}" has its object after a bracket.
  const spans = [
    ["{", "}"],
    ["[", "]"],
  ]
    .map(([open, close]) => ({ start: trimmed.indexOf(open as string), end: trimmed.lastIndexOf(close as string) }))
    .filter(({ start, end }) => start >= 0 && end > start)
    .sort((a, b) => a.start - b.start);
  for (const { start, end } of spans) yield trimmed.slice(start, end + 1);
}

function formatIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join(".") : "(root)"}: ${i.message}`).join("; ");
}
