import {
  APICallError,
  EmptyResponseBodyError,
  InvalidResponseDataError,
  JSONParseError,
  LoadAPIKeyError,
  NoContentGeneratedError,
  NoOutputGeneratedError,
  RetryError,
  TypeValidationError,
} from "ai";
import {
  isContextLimitMessage,
  LLMAuthenticationError,
  LLMBadRequestError,
  LLMConnectionError,
  LLMContextLengthExceededError,
  LLMError,
  LLMRateLimitError,
  LLMResponseError,
  LLMServerError,
  LLMTimeoutError,
  type LLMErrorOptions,
} from "./errors.js";
import { redactSecrets, scrubError } from "./redact.js";
import { parseRetryAfter } from "./retry.js";

/** What the error mapping needs to know about the call. */
export interface ErrorContext {
  provider: string;
  /** The provider's model name (without "provider/"). */
  model: string;
  /** The env var holding the key, named in authentication errors. */
  apiKeyEnvVar?: string;
  /** Secrets to strip from every text surfaced (the configured key). */
  secrets: readonly (string | undefined)[];
}

const MAX_DETAIL = 500;

/** Maps anything the AI SDK (or fetch) throws to the matching LLMError, with every text redacted. */
export function toLLMError(error: unknown, ctx: ErrorContext): LLMError {
  if (error instanceof LLMError) return error;
  scrubError(error, ctx.secrets);
  if (RetryError.isInstance(error) && error.lastError !== undefined) return toLLMError(error.lastError, ctx);
  const who = `${ctx.provider}/${ctx.model}`;
  const base: LLMErrorOptions = { provider: ctx.provider, model: ctx.model, cause: error };
  const clean = (text: string) => truncate(redactSecrets(text, ctx.secrets));

  if (APICallError.isInstance(error)) return fromApiCallError(error, ctx, base);
  if (LoadAPIKeyError.isInstance(error)) {
    return new LLMAuthenticationError(`${who}: no API key. ${keyAdvice(ctx)}`, base);
  }
  if (
    JSONParseError.isInstance(error) ||
    TypeValidationError.isInstance(error) ||
    InvalidResponseDataError.isInstance(error) ||
    EmptyResponseBodyError.isInstance(error) ||
    NoContentGeneratedError.isInstance(error) ||
    NoOutputGeneratedError.isInstance(error)
  ) {
    return new LLMResponseError(`${who}: the provider's response could not be read (${clean(error.message)}). ${RESPONSE_ADVICE}`, base);
  }
  if (isConnectionFailure(error)) {
    return new LLMConnectionError(`${who}: could not connect to the provider (${clean(describe(error))}). ${connectionAdvice(ctx.provider)}`, base);
  }
  // The SDK refused the request before sending it (e.g. a tool call without its result).
  if (error instanceof Error && typeof (error as { name?: unknown }).name === "string" && error.name.startsWith("AI_")) {
    return new LLMBadRequestError(`${who}: the request is invalid (${clean(error.message)}).`, base);
  }
  return new LLMError(`${who}: the call failed: ${clean(describe(error))}`, base);
}

function fromApiCallError(error: APICallError, ctx: ErrorContext, base: LLMErrorOptions): LLMError {
  const status = error.statusCode;
  const who = `${ctx.provider}/${ctx.model}`;
  const detail = truncate(redactSecrets(providerMessage(error), ctx.secrets));
  const options: LLMErrorOptions = { ...base, ...(status !== undefined ? { status } : {}) };
  const retryAfterMs = parseRetryAfter(error.responseHeaders);
  if (retryAfterMs !== undefined) options.retryAfterMs = retryAfterMs;

  if (status === undefined) {
    return new LLMConnectionError(`${who}: could not connect to the provider (${detail}). ${connectionAdvice(ctx.provider)}`, options);
  }
  const http = `HTTP ${status}`;
  if (status >= 200 && status < 300) {
    return new LLMResponseError(`${who}: ${http} with a response that could not be read (${detail}). ${RESPONSE_ADVICE}`, options);
  }
  if (status === 401 || status === 403) {
    const what = status === 401 ? "the API key was rejected" : "the API key has no access to this model";
    return new LLMAuthenticationError(`${who}: ${http}, ${what} (${detail}). ${keyAdvice(ctx)}`, options);
  }
  if (status === 429) {
    // An exhausted quota does not come back by waiting: retrying only burns time.
    if (/insufficient_quota|exceeded your current quota|credit balance/i.test(`${error.responseBody ?? ""} ${detail}`)) {
      return new LLMRateLimitError(`${who}: ${http}, the account's quota is exhausted (${detail}). Check the plan and billing of the API key.`, {
        ...options,
        retryable: false,
      });
    }
    return new LLMRateLimitError(
      `${who}: ${http}, rate limited (${detail}). Lower the request rate (maxRpm on the agent or crew), raise maxRetries, or raise the account's rate limit.`,
      options,
    );
  }
  if (status === 408) {
    return new LLMTimeoutError(`${who}: ${http}, the provider timed out (${detail}). Retry later or shorten the prompt.`, options);
  }
  if (status === 409) {
    return new LLMBadRequestError(`${who}: ${http}, conflict (${detail}). The provider asks to try again.`, { ...options, retryable: true });
  }
  if (status >= 500) {
    return new LLMServerError(
      `${who}: ${http}, the provider failed (${detail}). This is usually temporary: retry later, raise maxRetries, or use another model.`,
      options,
    );
  }
  if (status >= 400 && isContextLimitMessage(detail)) {
    return new LLMContextLengthExceededError(
      `${who}: ${http}, the context length was exceeded (${detail}). Shorten the input, split it, or set respectContextWindow: true on the agent.`,
      options,
    );
  }
  if (status === 404) {
    const fix = ctx.provider === "ollama" ? `Pull the model first ("ollama pull ${ctx.model}") or check OLLAMA_HOST.` : "Check the model name and baseURL.";
    return new LLMBadRequestError(`${who}: ${http}, not found (${detail}). ${fix}`, options);
  }
  if (status >= 400) {
    return new LLMBadRequestError(`${who}: ${http}, the request was rejected (${detail}). Check the model options and messages.`, options);
  }
  return new LLMResponseError(`${who}: unexpected ${http} (${detail}). ${RESPONSE_ADVICE}`, options);
}

const RESPONSE_ADVICE = "Check that baseURL points at a server speaking this provider's API; retry if the server was restarting.";
// Each provider's own way of pointing at its server, so the advice names the setting the user can change.
const SERVER_SETTING: Record<string, string> = {
  openai: "baseURL (or OPENAI_BASE_URL)",
  anthropic: "baseURL (or ANTHROPIC_BASE_URL)",
  ollama: "baseURL (or OLLAMA_HOST)",
  "openai-compatible": "the baseURL option",
};

/** What to check when the provider's server cannot be reached. */
export function connectionAdvice(provider: string): string {
  return `Check the network, ${SERVER_SETTING[provider] ?? "baseURL"} and that the server is running.`;
}

function keyAdvice(ctx: ErrorContext): string {
  return ctx.apiKeyEnvVar === undefined
    ? "Check the apiKey option."
    : `Set ${ctx.apiKeyEnvVar} (or pass apiKey) to a valid key for ${ctx.provider}.`;
}

// The provider's own error text ({"error":{"message":...}} in both OpenAI and Anthropic), else the SDK's.
function providerMessage(error: APICallError): string {
  const data = error.data as { error?: { message?: unknown } } | undefined;
  if (typeof data?.error?.message === "string") return data.error.message;
  const body = error.responseBody;
  if (body !== undefined && body !== "") {
    try {
      const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
      if (typeof parsed.error === "object" && typeof parsed.error.message === "string") return parsed.error.message;
      if (typeof parsed.error === "string") return parsed.error;
      if (typeof parsed.message === "string") return parsed.message;
    } catch {
      // Not JSON: the body itself is the best description.
    }
    return `${error.message}: ${body}`;
  }
  return error.message;
}

const CONNECTION_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_SOCKET", "UND_ERR_CONNECT_TIMEOUT"]);

// fetch reports network failures as TypeError("fetch failed") with the system error as cause.
function isConnectionFailure(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && CONNECTION_CODES.has(code)) return true;
    if (current instanceof TypeError && current.message === "fetch failed") return true;
  }
  return false;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${error.message}${cause}`;
}

function truncate(text: string): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > MAX_DETAIL ? `${oneLine.slice(0, MAX_DETAIL)}...` : oneLine;
}
