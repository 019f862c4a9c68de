import { z } from "zod";
import { defaultTotalTimeoutMs } from "./CallDeadline.js";
import { revealSecrets } from "./hideSecrets.js";
import { LLMOptionsError } from "./modelId.js";
import { DEFAULT_RETRY_POLICY } from "./retry.js";

/** Default per-attempt timeout: 10 minutes, as CrewAI/LiteLLM. */
export const DEFAULT_TIMEOUT_MS = 600_000;

const positiveInt = z.number().int().positive();

/** The schema of `new LLM(options)`. */
export const llmOptionsSchema = z.strictObject({
  /** "provider/model", e.g. "openai/gpt-4o-mini"; bare "gpt-*" and "claude-*" names are accepted. */
  model: z.string().trim().min(1, "must be a non-empty string like \"openai/gpt-4o-mini\""),
  /** Server address; required for openai-compatible. For ollama, with or without the trailing "/v1". */
  baseURL: z.url({ protocol: /^https?$/, error: "must be an http(s) URL like \"http://localhost:8000/v1\"" }).optional(),
  /** API key; default: the provider's env var (OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENAI_COMPATIBLE_API_KEY). */
  apiKey: z.string().min(1, "must not be empty (omit it to use the provider's env var)").optional(),
  temperature: z.number().min(0).max(2).optional(),
  /** Most tokens the model may generate per call. */
  maxTokens: positiveInt.optional(),
  /** Stop sequences sent with every call. */
  stop: z.union([z.string(), z.array(z.string())]).optional(),
  /** Timeout of each attempt, in milliseconds. */
  timeoutMs: positiveInt.default(DEFAULT_TIMEOUT_MS),
  /**
   * Deadline of the whole call in milliseconds, every attempt and the waits between retries included
   * (default 5 minutes, or timeoutMs when you set that longer); no attempt runs past it.
   */
  totalTimeoutMs: positiveInt.optional(),
  /** Retries after a retryable failure (429, 408, 409, 5xx, timeout, connection). */
  maxRetries: z.number().int().min(0).max(100).default(DEFAULT_RETRY_POLICY.maxRetries),
  /** Stream every call (text deltas reach `onToken` and `llm_stream_chunk` events). */
  stream: z.boolean().default(false),
  retry: z
    .strictObject({
      baseDelayMs: z.number().min(0).default(DEFAULT_RETRY_POLICY.baseDelayMs),
      maxDelayMs: z.number().min(0).default(DEFAULT_RETRY_POLICY.maxDelayMs),
    })
    .default({ baseDelayMs: DEFAULT_RETRY_POLICY.baseDelayMs, maxDelayMs: DEFAULT_RETRY_POLICY.maxDelayMs }),
  /** Extra HTTP headers sent with every request. */
  headers: z.record(z.string(), z.string()).optional(),
  /** What supportsFunctionCalling() returns, when the built-in guess for the model is wrong. */
  functionCalling: z.boolean().optional(),
  /** The model's full context window in tokens, when the built-in table does not know it (85% is used). */
  contextWindow: positiveInt.optional(),
});

/** Options of `new LLM(...)`; validated by llmOptionsSchema (test/types/options.test.ts keeps the two in step). */
export interface LLMOptions {
  /** "provider/model", e.g. "openai/gpt-4o-mini"; bare "gpt-*" and "claude-*" names are accepted. */
  model: string;
  /** Server address; required for openai-compatible. For ollama, with or without the trailing "/v1". */
  baseURL?: string;
  /** API key; default: the provider's env var (OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENAI_COMPATIBLE_API_KEY). */
  apiKey?: string;
  /** Sampling temperature, 0 to 2 (the provider's default when unset). */
  temperature?: number;
  /** Most tokens the model may generate per call. */
  maxTokens?: number;
  /** Stop sequences sent with every call. */
  stop?: string | string[];
  /** Timeout of each attempt, in milliseconds (default 10 minutes). */
  timeoutMs?: number;
  /** Deadline of the whole call in milliseconds, retries and their waits included (default 5 minutes, or timeoutMs when longer). */
  totalTimeoutMs?: number;
  /** Retries after a retryable failure: 429, 408, 409, 5xx, timeout, connection (default 3). */
  maxRetries?: number;
  /** Stream every call (text deltas reach `onToken` and `llm_stream_chunk` events); default false. */
  stream?: boolean;
  /** Backoff between retries: first delay and cap, in milliseconds (jittered; Retry-After wins). */
  retry?: { baseDelayMs?: number; maxDelayMs?: number };
  /** Extra HTTP headers sent with every request. */
  headers?: Record<string, string>;
  /** What supportsFunctionCalling() returns, when the built-in guess for the model is wrong. */
  functionCalling?: boolean;
  /** The model's full context window in tokens, when the built-in table does not know it (85% is used). */
  contextWindow?: number;
}

/** LLMOptions after validation, defaults filled in. */
export type ResolvedLLMOptions = z.output<typeof llmOptionsSchema> & { totalTimeoutMs: number };

/** Validates LLM options once; a bad option is an LLMOptionsError naming the field. */
export function parseLLMOptions(options: unknown): ResolvedLLMOptions {
  if (typeof options !== "object" || options === null) {
    throw new LLMOptionsError(`LLM options must be an object like { model: "openai/gpt-4o-mini" }, got ${options === null ? "null" : typeof options}.`);
  }
  // Options copied from an agent or crew may hold their key hidden from iteration (hideSecrets).
  const parsed = llmOptionsSchema.safeParse(revealSecrets(options));
  if (parsed.success) {
    const explicitTimeoutMs = (options as { timeoutMs?: unknown }).timeoutMs === undefined ? undefined : parsed.data.timeoutMs;
    return { ...parsed.data, totalTimeoutMs: parsed.data.totalTimeoutMs ?? defaultTotalTimeoutMs(explicitTimeoutMs) };
  }
  const problems = parsed.error.issues.map((issue) => {
    const field = issue.path.join(".");
    return field === "" ? issue.message : `${field}: ${issue.message}`;
  });
  throw new LLMOptionsError(`Invalid LLM options: ${problems.join("; ")}.`);
}
