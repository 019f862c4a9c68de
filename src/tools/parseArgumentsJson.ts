import { jsonrepair } from "jsonrepair";
import { fallbackText } from "./stableStringify.js";

/** Outcome of turning a model's argument text into an object. */
export type ArgumentsParseResult = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

/**
 * Reads the arguments a model wrote as text. Models write almost-JSON (single quotes, Python's
 * True/None, trailing commas, code fences, unquoted keys), so text that is not valid JSON is
 * repaired with jsonrepair, as CrewAI does with json_repair. Empty text means "no arguments".
 */
export function parseArgumentsJson(text: string): ArgumentsParseResult {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: true, value: {} };
  let value = parseLenient(trimmed);
  // Some models encode the arguments twice: "{\"a\": 1}" arrives as a JSON string holding JSON.
  if (typeof value === "string" && /^\s*\{/.test(value)) value = parseLenient(value);
  if (value === undefined) {
    return { ok: false, error: "the arguments are not valid JSON and could not be repaired" };
  }
  if (!isPlainRecord(value)) {
    return { ok: false, error: `the arguments must be a JSON object of named values, but got ${kindOf(value)}` };
  }
  return { ok: true, value };
}

function parseLenient(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // fall through to repair
  }
  try {
    return JSON.parse(jsonrepair(text)) as unknown;
  } catch {
    return undefined;
  }
}

/** Whether `value` is a plain object (not null, not an array). */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A short name of a JSON value's kind, for messages to the model. */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)})`;
  return `${typeof value} ${fallbackText(value)}`;
}
