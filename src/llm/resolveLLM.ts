import { LLM } from "./LLM.js";
import type { BaseLLM } from "./types.js";

/** The model used when none is given and neither CREWTS_MODEL nor MODEL is set. */
export const DEFAULT_MODEL = "openai/gpt-4o-mini";

/** Whether `value` implements BaseLLM (checked at runtime, for JavaScript callers and config files). */
export function isBaseLLM(value: unknown): value is BaseLLM {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<Record<keyof BaseLLM, unknown>>;
  return (
    typeof candidate.model === "string" &&
    typeof candidate.call === "function" &&
    typeof candidate.supportsFunctionCalling === "function" &&
    typeof candidate.contextWindowSize === "function"
  );
}

/**
 * Turns an `llm` option into a BaseLLM: a model string becomes `new LLM({ model })`; undefined uses
 * env CREWTS_MODEL, then MODEL, else "openai/gpt-4o-mini"; a BaseLLM is returned as is.
 */
export function resolveLLM(llm?: string | BaseLLM): BaseLLM {
  if (llm === undefined || llm === null) {
    const fromEnv = [process.env.CREWTS_MODEL, process.env.MODEL].map((value) => value?.trim()).find((value) => value !== undefined && value !== "");
    return new LLM({ model: fromEnv ?? DEFAULT_MODEL });
  }
  if (typeof llm === "string") return new LLM({ model: llm });
  if (isBaseLLM(llm)) return llm;
  throw new TypeError(
    `llm must be a model string like "openai/gpt-4o-mini" or an object implementing BaseLLM ` +
      `(model: string, call(), supportsFunctionCalling(), contextWindowSize()); got ${describe(llm)}.`,
  );
}

function describe(value: unknown): string {
  if (typeof value !== "object" || value === null) return value === null ? "null" : typeof value;
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  const missing = ["model", "call", "supportsFunctionCalling", "contextWindowSize"].filter((key) => !(key in value));
  return `${typeof name === "string" ? name : "an object"}${missing.length > 0 ? ` missing ${missing.join(", ")}` : " with members of the wrong type"}`;
}
