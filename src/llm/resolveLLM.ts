import { LLM } from "./LLM.js";
import { LLMOptionsError } from "./modelId.js";
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

// Read in this order when an agent has no llm.
const MODEL_VARIABLES = ["CREWTS_MODEL", "MODEL"] as const;

/**
 * Turns an `llm` option into a BaseLLM: a model string becomes `new LLM({ model })`; undefined uses
 * env CREWTS_MODEL, then MODEL, else "openai/gpt-4o-mini"; a BaseLLM is returned as is.
 */
export function resolveLLM(llm?: string | BaseLLM): BaseLLM {
  if (llm === undefined || llm === null) {
    const variable = MODEL_VARIABLES.find((name) => (process.env[name]?.trim() ?? "") !== "");
    if (variable === undefined) return new LLM({ model: DEFAULT_MODEL });
    try {
      return new LLM({ model: process.env[variable]!.trim() });
    } catch (error) {
      // The value came from the environment, not from code or YAML: say so, or the user looks in the wrong place.
      if (error instanceof LLMOptionsError) {
        const fromEnv = new LLMOptionsError(`The environment variable ${variable} is invalid: ${error.message} Fix ${variable} (in the shell or .env) or unset it.`);
        fromEnv.environmentVariable = variable;
        throw fromEnv;
      }
      throw error;
    }
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
