import { redactSecrets } from "./redact.js";

/** What every LLMError knows about the failed call. */
export interface LLMErrorOptions {
  provider: string;
  model: string;
  /** HTTP status of the provider's answer, when there was one. */
  status?: number;
  /** Whether trying the same request again may succeed (each subclass has its default). */
  retryable?: boolean;
  cause?: unknown;
  /** How long the provider asked us to wait before retrying (from Retry-After headers). */
  retryAfterMs?: number;
}

/** A failed LLM call. The message names provider, model and status and says what to do; it never holds an API key. */
export class LLMError extends Error {
  override name = "LLMError";
  readonly provider: string;
  readonly model: string;
  readonly status?: number;
  readonly retryable: boolean;
  override readonly cause: unknown;
  readonly retryAfterMs?: number;
  /** How many attempts were made before giving up (set by the retry loop). */
  attempts = 1;
  /** Whether errors of this class are retried when the options do not say. */
  protected static readonly retryableByDefault: boolean = false;

  constructor(message: string, options: LLMErrorOptions) {
    // Redacted here too, so no subclass or caller can surface a key by accident.
    super(redactSecrets(message), { cause: options.cause });
    this.provider = options.provider;
    this.model = options.model;
    if (options.status !== undefined) this.status = options.status;
    this.retryable = options.retryable ?? new.target.retryableByDefault;
    this.cause = options.cause;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }

  /** Records how many attempts were made and says so in the message (called once, when retries end). */
  recordAttempts(attempts: number): this {
    this.attempts = attempts;
    if (attempts > 1 || this.retryable) {
      this.message += ` Gave up after ${attempts} attempt${attempts === 1 ? "" : "s"}.`;
    }
    return this;
  }
}

/** 401/403 or no API key: the key is missing, wrong, or lacks access. Not retried. */
export class LLMAuthenticationError extends LLMError {
  override name = "LLMAuthenticationError";
}

/** 429: too many requests (retried), or an exhausted quota (not retried). */
export class LLMRateLimitError extends LLMError {
  override name = "LLMRateLimitError";
  protected static override readonly retryableByDefault = true;
}

/** 5xx: the provider failed. Retried. */
export class LLMServerError extends LLMError {
  override name = "LLMServerError";
  protected static override readonly retryableByDefault = true;
}

/** The attempt took longer than `timeoutMs` (or the server answered 408). Retried. */
export class LLMTimeoutError extends LLMError {
  override name = "LLMTimeoutError";
  protected static override readonly retryableByDefault = true;
}

/** The provider could not be reached (refused, reset, DNS). Retried. */
export class LLMConnectionError extends LLMError {
  override name = "LLMConnectionError";
  protected static override readonly retryableByDefault = true;
}

/** A 4xx other than 401/403/408/429, or a request the SDK refused to send. Not retried (409 is). */
export class LLMBadRequestError extends LLMError {
  override name = "LLMBadRequestError";
}

/** The conversation no longer fits the model's context window; the agent may summarize and try again. */
export class LLMContextLengthExceededError extends LLMBadRequestError {
  override name = "LLMContextLengthExceededError";
}

/** The provider answered, but with something that is not a valid response. */
export class LLMResponseError extends LLMError {
  override name = "LLMResponseError";
}

/**
 * Phrases of provider errors that mean the context window was exceeded: CrewAI's list
 * (utilities/exceptions/context_window_exceeding_exception.py) plus Anthropic's and Ollama's wording.
 */
export const CONTEXT_LIMIT_PHRASES: readonly string[] = [
  "expected a string with maximum length",
  "maximum context length",
  "context length exceeded",
  "context_length_exceeded",
  "context window full",
  "too many tokens",
  "input is too long",
  "exceeds token limit",
  "prompt is too long",
  "exceeds the context window",
  "context window exceeds limit",
];

/** Whether a provider error message says the context window was exceeded. */
export function isContextLimitMessage(message: string): boolean {
  const lower = message.toLowerCase();
  return CONTEXT_LIMIT_PHRASES.some((phrase) => lower.includes(phrase));
}
