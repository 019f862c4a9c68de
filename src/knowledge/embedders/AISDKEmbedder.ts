import { z } from "zod";
import { eventBus } from "../../events/index.js";
import { CallDeadline, defaultTotalTimeoutMs } from "../../llm/CallDeadline.js";
import { LLMAuthenticationError, LLMTimeoutError } from "../../llm/errors.js";
import { revealSecrets } from "../../llm/hideSecrets.js";
import { abortReason, DEFAULT_RETRY_POLICY, withRetries, type RetryNotice, type RetryPolicy } from "../../llm/retry.js";
import type { ErrorContext } from "../../llm/toLLMError.js";
import { addToUsageMetrics, emptyUsageMetrics, type UsageMetrics } from "../../llm/UsageMetrics.js";
import { embedInBatches } from "./batching.js";
import { EmbedderError, type EmbedOptions, type Embedder } from "./Embedder.js";
import type * as EmbeddingSdk from "./embeddingSdk.js";

/** Providers with an embeddings API. */
export const EMBEDDING_PROVIDERS = ["openai", "ollama", "openai-compatible"] as const;

/** One of EMBEDDING_PROVIDERS. */
export type EmbeddingProvider = (typeof EMBEDDING_PROVIDERS)[number];

/** Options of AISDKEmbedder. */
export interface AISDKEmbedderOptions {
  provider: EmbeddingProvider;
  /** The provider's model name, e.g. "text-embedding-3-small" or "nomic-embed-text". */
  model: string;
  /** Server address (required for openai-compatible; ollama defaults to OLLAMA_HOST, then localhost:11434). */
  baseURL?: string;
  /** Defaults to OPENAI_API_KEY / OLLAMA_API_KEY / OPENAI_COMPATIBLE_API_KEY. */
  apiKey?: string;
  /** Vector length; known for common models, else learned on the first call. Sent to OpenAI to shorten vectors. */
  dimensions?: number;
  /** Most texts per request (default 100). */
  batchSize?: number;
  /** Retries of a failed request (default 3); `retry.maxRetries` wins when both are given. */
  maxRetries?: number;
  /** Retries and backoff of failed requests, as LLMOptions: `maxRetries` (3), `baseDelayMs` (1000), `maxDelayMs` (30000). */
  retry?: Partial<RetryPolicy>;
  /** Time limit of one request (default 60 s). */
  timeoutMs?: number;
  /** Deadline of one batch, its retries and the waits between them included (default 5 minutes, or timeoutMs when longer). */
  totalTimeoutMs?: number;
  headers?: Record<string, string>;
}

const optionsSchema = z.object({
  provider: z.enum(EMBEDDING_PROVIDERS),
  model: z.string().min(1),
  baseURL: z.string().url().optional(),
  apiKey: z.string().min(1).optional(),
  dimensions: z.number().int().positive().optional(),
  batchSize: z.number().int().positive().max(2048).optional(),
  maxRetries: z.number().int().min(0).optional(),
  retry: z
    .object({
      maxRetries: z.number().int().min(0).max(100).optional(),
      baseDelayMs: z.number().min(0).optional(),
      maxDelayMs: z.number().min(0).optional(),
    })
    .strict()
    .optional(),
  timeoutMs: z.number().int().positive().optional(),
  totalTimeoutMs: z.number().int().positive().optional(),
  headers: z.record(z.string(), z.string()).optional(),
});

// Vector sizes of well-known models, so stores can create their columns before the first call.
const KNOWN_DIMENSIONS: Record<string, number> = {
  "text-embedding-3-small": 1536,
  "text-embedding-3-large": 3072,
  "text-embedding-ada-002": 1536,
  "nomic-embed-text": 768,
  "mxbai-embed-large": 1024,
  "all-minilm": 384,
};

type Sdk = typeof EmbeddingSdk;
let sdkModule: Promise<Sdk> | undefined;
const loadSdk = (): Promise<Sdk> => (sdkModule ??= import("./embeddingSdk.js"));

/** An embedding model behind the Vercel AI SDK, batched, with our retries, timeouts and error mapping. */
export class AISDKEmbedder implements Embedder {
  readonly id: string;
  readonly provider: EmbeddingProvider;
  readonly model: string;
  readonly usage: UsageMetrics = emptyUsageMetrics();
  // ES private: holds the API key, which must not show in logs or JSON.
  readonly #options: AISDKEmbedderOptions;
  readonly #retry: RetryPolicy;
  #dimensions: number | undefined;
  #built: { model: Parameters<Sdk["embedOnce"]>[0]; ctx: ErrorContext } | undefined;

  constructor(options: AISDKEmbedderOptions) {
    const parsed = optionsSchema.safeParse(options);
    if (!parsed.success) {
      throw new EmbedderError(`Invalid embedder options: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}.`);
    }
    if (options.provider === "openai-compatible" && options.baseURL === undefined) {
      throw new EmbedderError(`Invalid embedder options: baseURL is required for openai-compatible/${options.model}, e.g. baseURL: "http://localhost:8000/v1".`);
    }
    // A spread would drop a key hidden by hideSecrets (options kept by an agent or crew).
    this.#options = revealSecrets(options);
    this.#retry = {
      maxRetries: options.retry?.maxRetries ?? options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
      baseDelayMs: options.retry?.baseDelayMs ?? DEFAULT_RETRY_POLICY.baseDelayMs,
      maxDelayMs: options.retry?.maxDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs,
    };
    this.provider = options.provider;
    this.model = options.model;
    this.id = `${options.provider}/${options.model}`;
    this.#dimensions = options.dimensions ?? KNOWN_DIMENSIONS[options.model.replace(/:.*$/, "")];
  }

  get dimensions(): number | undefined {
    return this.#dimensions;
  }

  /** Embeds `texts`, one request per batch, each retried on transient failures. */
  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<number[][]> {
    if (texts.length === 0) return [];
    if (options.signal?.aborted) throw abortReason(options.signal);
    const sdk = await loadSdk();
    const { model, ctx } = this.build(sdk);
    const timeoutMs = this.#options.timeoutMs ?? 60_000;
    const totalTimeoutMs = this.#options.totalTimeoutMs ?? defaultTotalTimeoutMs(this.#options.timeoutMs);
    const embedBatch = (batch: string[]) => {
      // Each batch is one request with its own deadline: a long input does not share one across batches.
      const deadline = new CallDeadline(timeoutMs, totalTimeoutMs);
      return withRetries(() => this.attempt(sdk, model, ctx, batch, deadline, options.signal), {
        ...this.#retry,
        deadline,
        ...(options.signal !== undefined ? { signal: options.signal } : {}),
        onRetry: (notice) => this.emitRetry(notice),
      });
    };
    const vectors = await embedInBatches(this.id, texts, this.#options.batchSize ?? 100, embedBatch, this.#dimensions);
    this.#dimensions ??= vectors[0]?.length;
    return vectors;
  }

  private emitRetry({ attempt, delayMs, error }: RetryNotice): void {
    if (!eventBus.hasListeners("embedder_call_retry")) return;
    // LLMError messages are redacted when mapped (toLLMError, with the key among ctx.secrets).
    eventBus.emit("embedder_call_retry", { embedder: this.id, attempt, delayMs, error: error.message, ...(error.status !== undefined ? { status: error.status } : {}) });
  }

  private async attempt(
    sdk: Sdk,
    model: Parameters<Sdk["embedOnce"]>[0],
    ctx: ErrorContext,
    batch: string[],
    deadline: CallDeadline,
    userSignal: AbortSignal | undefined,
  ): Promise<number[][]> {
    const budget = deadline.nextAttempt();
    const totalReached = (cause?: unknown) =>
      new LLMTimeoutError(`${this.id}: no embeddings within ${deadline.reachedText()}. Raise totalTimeoutMs, lower batchSize, or check the server.`, {
        provider: ctx.provider,
        model: ctx.model,
        retryable: false,
        ...(cause !== undefined ? { cause } : {}),
      });
    if (budget.ms === 0) throw totalReached();
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, budget.ms);
    const onUserAbort = () => controller.abort(userSignal?.reason);
    userSignal?.addEventListener("abort", onUserAbort, { once: true });
    if (userSignal?.aborted) onUserAbort();
    try {
      // Only OpenAI accepts a requested size; other servers return their model's own.
      const requested = this.provider === "openai" ? this.#options.dimensions : undefined;
      const { embeddings, tokens } = await sdk.embedOnce(model, batch, controller.signal, requested);
      addToUsageMetrics(this.usage, { promptTokens: tokens, completionTokens: 0, totalTokens: tokens });
      return embeddings;
    } catch (error) {
      if (userSignal?.aborted) throw abortReason(userSignal);
      if (timedOut && budget.byTotal) throw totalReached(error);
      if (timedOut) {
        throw new LLMTimeoutError(`${this.id}: no embeddings within ${deadline.timeoutMs} ms (timeoutMs). Raise timeoutMs, lower batchSize, or check the server.`, {
          provider: ctx.provider,
          model: ctx.model,
          cause: error,
        });
      }
      throw sdk.toLLMError(error, ctx);
    } finally {
      clearTimeout(timer);
      userSignal?.removeEventListener("abort", onUserAbort);
    }
  }

  private build(sdk: Sdk): { model: Parameters<Sdk["embedOnce"]>[0]; ctx: ErrorContext } {
    if (this.#built) return this.#built;
    const connection = sdk.resolveConnection({ provider: this.provider, name: this.model }, this.#options);
    if (connection.apiKeyRequired && connection.apiKey === undefined) {
      throw new LLMAuthenticationError(`${this.id}: no API key. Set ${connection.apiKeyEnvVar} in the environment, or pass apiKey in the embedder options.`, {
        provider: this.provider,
        model: this.model,
      });
    }
    const ctx: ErrorContext = { provider: this.provider, model: this.model, secrets: [connection.apiKey], apiKeyEnvVar: connection.apiKeyEnvVar };
    this.#built = { model: sdk.createEmbeddingModel(this.provider, this.model, connection, this.#options.headers), ctx };
    return this.#built;
  }
}
