import { InterpolationError } from "./errors.js";

// CrewAI's interpolate_only pattern: identifier-like names only, so JSON such as `{"a": 1}` or `{ }` is left alone.
const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_-]*)\}/g;

/** Replaces `{name}` placeholders with input values, as CrewAI's interpolate_only; anything else in braces is kept. */
export function interpolate(text: string, inputs: Record<string, unknown>): string {
  if (!text) return "";
  checkInputs(inputs);
  return fillPlaceholders(text, inputs);
}

/** Checks every input value as interpolate does (so a kickoff checks its inputs once for all its texts). */
export function checkInputs(inputs: Record<string, unknown>): void {
  for (const key in inputs) if (Object.hasOwn(inputs, key)) checkValue(key, inputs[key]);
}

// The same pattern for split(): the literal text and the placeholder names, alternating.
const PLACEHOLDER_PARTS = /\{([A-Za-z_][A-Za-z0-9_-]*)\}/;
// Texts split once: every kickoff of a crew fills the same few texts (descriptions, goals) again.
// Bounded in count and in the length of the texts kept.
const templates = new Map<string, readonly string[]>();
const MAX_TEMPLATES = 1024;
const MAX_TEMPLATE_LENGTH = 65_536;

/** Whether `inputs` has no keys of its own (no array of keys made: every kickoff asks for each text). */
export function hasNoInputs(inputs: Record<string, unknown>): boolean {
  for (const key in inputs) if (Object.hasOwn(inputs, key)) return false;
  return true;
}

/** interpolate for inputs already checked with checkInputs. */
export function fillPlaceholders(text: string, inputs: Record<string, unknown>): string {
  if (!text || !text.includes("{")) return text;
  let parts = templates.get(text);
  if (parts === undefined) {
    parts = text.split(PLACEHOLDER_PARTS);
    if (templates.size < MAX_TEMPLATES && text.length <= MAX_TEMPLATE_LENGTH) templates.set(text, parts);
  }
  let filled = parts[0] ?? "";
  for (let i = 1; i < parts.length; i += 2) filled += valueOf(parts[i]!, inputs) + (parts[i + 1] ?? "");
  return filled;
}

/** The text an input puts in place of `{name}`. */
function valueOf(name: string, inputs: Record<string, unknown>): string {
  if (!Object.hasOwn(inputs, name)) {
    const given = Object.keys(inputs);
    throw new InterpolationError(
      `Template variable '${name}' not found in inputs. ` +
        `Inputs given: ${given.length ? given.map((k) => `'${k}'`).join(", ") : "none"}. Pass '${name}' in the inputs (e.g. kickoff({ ${name}: "..." })).`,
    );
  }
  const value = inputs[name];
  if (value === null || value === undefined) {
    throw new InterpolationError(`Input '${name}' is ${String(value)}. Give it a string, number, boolean, array or plain object value.`);
  }
  return render(value);
}

/** The names of the `{placeholders}` in `text`. */
export function placeholdersOf(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1] ?? ""))];
}

function render(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

// As CrewAI, every input is checked, used or not; null and undefined fail only where a placeholder uses them
// (optional fields of an inputs object are common in TypeScript).
function checkValue(key: string, value: unknown): void {
  if (value === undefined) return;
  const problem = unsupported(value);
  if (problem) {
    throw new InterpolationError(
      `Invalid value for input '${key}': unsupported type ${problem}. Only strings, numbers, booleans, arrays and plain objects are allowed.`,
    );
  }
}

// Returns the name of the first unsupported type found (nested nulls are fine: JSON has them), or undefined.
function unsupported(value: unknown): string | undefined {
  if (value === null || typeof value === "string" || typeof value === "boolean") return undefined;
  if (typeof value === "number") return Number.isFinite(value) ? undefined : String(value);
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) {
      const p = unsupported(item);
      if (p) return p;
    }
    return undefined;
  }
  if (typeof value === "object") {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) return (value).constructor?.name ?? "object";
    for (const item of Object.values(value)) {
      const p = unsupported(item);
      if (p) return p;
    }
    return undefined;
  }
  return typeof value;
}
