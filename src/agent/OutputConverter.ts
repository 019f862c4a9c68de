import { z } from "zod";
import { callLLM } from "../llm/callLLM.js";
import { parseJsonReply } from "../llm/jsonReply.js";
import type { BaseLLM, CallSource } from "../llm/types.js";
import { addToUsageMetrics, emptyUsageMetrics, type UsageMetrics } from "../llm/UsageMetrics.js";
import { prompts } from "./prompts.js";

/** Thrown when an output cannot be turned into the requested schema. */
export class ConverterError extends Error {
  constructor(
    message: string,
    readonly rawOutput: string,
  ) {
    super(message);
    this.name = "ConverterError";
  }
}

/** The result of a conversion: the parsed value and the tokens spent converting (zero when no LLM call was needed). */
export interface Conversion<T> {
  parsed: T;
  usage: UsageMetrics;
}

/** Options of a conversion. */
export interface ConvertOptions {
  /** Asked to rewrite the text as JSON when it cannot be parsed directly. Without it, only direct parsing is tried. */
  llm?: BaseLLM;
  /** LLM conversion attempts (default 3). */
  maxAttempts?: number;
  source?: CallSource;
  signal?: AbortSignal;
}

/** The JSON schema text of a zod schema, for prompts. */
export function schemaToJsonText(schema: z.ZodType): string {
  const json = z.toJSONSchema(schema, { unrepresentable: "any" }) as Record<string, unknown>;
  delete json.$schema;
  return JSON.stringify(json, null, 2);
}

/**
 * Turns model output into a value of `schema`: the text as JSON first, then JSON found inside mixed or
 * fenced text (repaired when slightly broken), then, with an LLM, up to `maxAttempts` rewrites.
 */
export async function convertToSchema<S extends z.ZodType>(text: string, schema: S, options: ConvertOptions = {}): Promise<Conversion<z.infer<S>>> {
  const usage = emptyUsageMetrics();
  let attempt = parseJsonReply(text, schema);
  if (attempt.ok) return { parsed: attempt.value, usage };
  const maxAttempts = options.maxAttempts ?? 3;
  if (!options.llm || maxAttempts < 1) {
    throw new ConverterError(`The output is not valid for the expected schema: ${attempt.error}`, text);
  }
  const schemaText = schemaToJsonText(schema);
  for (let i = 0; i < maxAttempts; i++) {
    const result = await callLLM(
      options.llm,
      [
        { role: "system", content: "You convert text into JSON that matches a given JSON schema. You reply with JSON only." },
        { role: "user", content: prompts.convertToJson(schemaText, text, attempt.error) },
      ],
      { ...(options.source ? { source: options.source } : {}), ...(options.signal ? { signal: options.signal } : {}) },
    );
    addToUsageMetrics(usage, result.usage);
    attempt = parseJsonReply(result.text, schema);
    if (attempt.ok) return { parsed: attempt.value, usage };
  }
  throw new ConverterError(
    `The output could not be converted to the expected schema after ${maxAttempts} LLM attempt(s): ${attempt.error}. ` +
      "Make the expected output describe the fields, or use a model that follows JSON instructions better.",
    text,
  );
}
