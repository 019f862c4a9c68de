import { newId } from "../events/newId.js";
import type { LanguageModel } from "ai";
import { eventBus, traceHooks } from "../events/index.js";
import type { CompletionRequest } from "./completion.js";
import type * as SdkModule from "./sdk.js";
import { CallDeadline } from "./CallDeadline.js";
import { contextWindowOf, usableContextWindow } from "./contextWindow.js";
import { LLMAuthenticationError, LLMTimeoutError } from "./errors.js";
import { parseLLMOptions, type LLMOptions, type ResolvedLLMOptions } from "./LLMOptions.js";
import { isReasoningModel, LLMOptionsError, parseModelId, supportsToolCalling, type ModelId, type Provider } from "./modelId.js";
import { abortReason, withRetries } from "./retry.js";
import type { ErrorContext } from "./toLLMError.js";
import type { BaseLLM, ChatMessage, LLMCallOptions, LLMResult, ToolCall } from "./types.js";

type Sdk = typeof SdkModule;
let sdkModule: Promise<Sdk> | undefined;
/** The AI SDK side of the layer, imported once, on the first call of any LLM. */
const loadSdk = (): Promise<Sdk> => (sdkModule ??= import("./sdk.js"));

/** A model behind the Vercel AI SDK: openai, anthropic, ollama or any openai-compatible server, with retries and timeouts. */
export class LLM implements BaseLLM {
  /** "provider/model", e.g. "openai/gpt-4o-mini" (a bare "gpt-4o" becomes "openai/gpt-4o"). */
  readonly model: string;
  readonly provider: Provider;
  /** The model name the provider knows (without "provider/"). */
  readonly modelName: string;
  // ES private (#) rather than TypeScript `private`: they hold the API key, and JSON.stringify or
  // console.log of an LLM (or of an agent holding one) must not print it.
  readonly #options: ResolvedLLMOptions;
  // Built on first call, so agents can be constructed offline and before the env is set.
  #built: { model: LanguageModel; errorContext: ErrorContext } | undefined;
  private readonly id: ModelId;
  private readonly stop: string[];

  constructor(options: LLMOptions) {
    this.#options = parseLLMOptions(options);
    this.id = parseModelId(this.#options.model);
    if (this.id.provider === "openai-compatible" && this.#options.baseURL === undefined) {
      throw new LLMOptionsError(
        `Invalid LLM options: baseURL: required for "${this.#options.model}": an openai-compatible model needs the server address, e.g. baseURL: "http://localhost:8000/v1".`,
      );
    }
    this.provider = this.id.provider;
    this.modelName = this.id.name;
    this.model = `${this.id.provider}/${this.id.name}`;
    const stop = this.#options.stop;
    this.stop = stop === undefined ? [] : typeof stop === "string" ? [stop] : [...stop];
  }

  /** Whether the model calls tools natively (the `functionCalling` option overrides the guess). */
  supportsFunctionCalling(): boolean {
    return this.#options.functionCalling ?? supportsToolCalling(this.id);
  }

  /** False for OpenAI reasoning models (o1, o3, o4-mini, gpt-5), which reject stop sequences. */
  supportsStopWords(): boolean {
    return !isReasoningModel(this.id.name);
  }

  /** Usable context size in tokens: 85% of the model's window, as CrewAI. */
  contextWindowSize(): number {
    return usableContextWindow(this.#options.contextWindow ?? contextWindowOf(this.id.name));
  }

  /** Calls the model once (retrying transient failures); streams when `options.stream` or the `stream` option is set. */
  async call(messages: ChatMessage[], options: LLMCallOptions = {}): Promise<LLMResult> {
    if (options.signal?.aborted) throw abortReason(options.signal);
    const callId = options.callId ?? newId();
    const sdk = await loadSdk();
    const { model, errorContext: ctx } = this.build(sdk);
    const request = this.request(sdk, model, messages, options);
    // Under tracing, the provider request carries the llm.call span as its W3C parent.
    const headers = traceHooks?.llmHeaders(callId);
    if (headers !== undefined) request.headers = headers;
    const stream = options.stream ?? this.#options.stream;
    const deadline = new CallDeadline(this.#options.timeoutMs, this.#options.totalTimeoutMs);
    let streamed = false;
    return withRetries(
      async () => {
        streamed = false;
        return this.attempt(sdk, request, options, ctx, deadline, stream ? (delta) => {
          streamed = true;
          this.onDelta(delta, callId, options);
        } : undefined, stream && options.onToolCall ? (call) => {
          streamed = true;
          options.onToolCall!(call);
        } : undefined);
      },
      {
        maxRetries: this.#options.maxRetries,
        baseDelayMs: this.#options.retry.baseDelayMs,
        maxDelayMs: this.#options.retry.maxDelayMs,
        deadline,
        ...(options.signal !== undefined ? { signal: options.signal } : {}),
        // Text already handed to onToken cannot be taken back: a stream that broke midway is not replayed.
        canRetry: () => !streamed,
        onRetry: ({ attempt, delayMs, error }) => {
          if (!eventBus.hasListeners("llm_call_retry")) return;
          eventBus.emit("llm_call_retry", {
            ...options.source,
            callId,
            model: this.model,
            attempt,
            delayMs,
            error: error.message,
            ...(error.status !== undefined ? { status: error.status } : {}),
          });
        },
      },
    );
  }

  /** One attempt under its own timeout, cut short by the call's deadline; every failure leaves as an LLMError, except a user abort. */
  private async attempt(
    sdk: Sdk,
    request: CompletionRequest,
    options: LLMCallOptions,
    ctx: ErrorContext,
    deadline: CallDeadline,
    onDelta: ((delta: string) => void) | undefined,
    onToolCall?: (call: ToolCall) => void,
  ): Promise<LLMResult> {
    const budget = deadline.nextAttempt();
    const who = `${ctx.provider}/${ctx.model}`;
    const totalReached = (cause?: unknown) =>
      new LLMTimeoutError(`${who}: no answer within ${deadline.reachedText()}. Raise totalTimeoutMs, shorten the prompt, or check that the server is not overloaded.`, {
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
    // A listener removed after each attempt rather than AbortSignal.any: a long-lived user signal
    // (one per agent run) would otherwise collect a combined signal per call until GC.
    const userSignal = options.signal;
    const onUserAbort = () => controller.abort(userSignal?.reason);
    userSignal?.addEventListener("abort", onUserAbort, { once: true });
    // A listener added to an already-aborted signal never fires: the request would run to the timeout.
    if (userSignal?.aborted) onUserAbort();
    try {
      return onDelta === undefined ? await sdk.completeText(request, controller.signal) : await sdk.streamCompletion(request, controller.signal, onDelta, onToolCall && ((part) => onToolCall(sdk.fromSdkToolCall(part))));
    } catch (error) {
      if (userSignal?.aborted) throw abortReason(userSignal);
      if (timedOut && budget.byTotal) throw totalReached(error);
      if (timedOut) {
        throw new LLMTimeoutError(
          `${who}: no answer within ${this.#options.timeoutMs} ms (timeoutMs). Raise timeoutMs, shorten the prompt, or check that the server is not overloaded.`,
          { provider: ctx.provider, model: ctx.model, cause: error },
        );
      }
      throw sdk.toLLMError(error, ctx);
    } finally {
      clearTimeout(timer);
      userSignal?.removeEventListener("abort", onUserAbort);
    }
  }

  private onDelta(delta: string, callId: string, options: LLMCallOptions): void {
    options.onToken?.(delta);
    if (eventBus.hasListeners("llm_stream_chunk")) {
      eventBus.emit("llm_stream_chunk", { ...options.source, callId, model: this.model, chunk: delta });
    }
  }

  private request(sdk: Sdk, model: LanguageModel, messages: ChatMessage[], options: LLMCallOptions): CompletionRequest {
    const reasoning = isReasoningModel(this.id.name);
    const request: CompletionRequest = {
      model,
      messages: sdk.toModelMessages(messages, { objectToolInputs: this.id.provider === "anthropic" }),
    };
    if (options.tools !== undefined && options.tools.length > 0) request.tools = sdk.toToolSet(options.tools);
    const stop = [...new Set([...this.stop, ...(options.stop ?? [])])];
    // Reasoning models reject `stop` and `temperature`; the agent truncates at stop words itself.
    if (stop.length > 0 && !reasoning) request.stopSequences = stop;
    if (this.#options.temperature !== undefined && !reasoning) request.temperature = this.#options.temperature;
    if (this.#options.maxTokens !== undefined) request.maxOutputTokens = this.#options.maxTokens;
    return request;
  }

  private build(sdk: Sdk): { model: LanguageModel; errorContext: ErrorContext } {
    if (this.#built) return this.#built;
    const connection = sdk.resolveConnection(this.id, this.#options);
    if (connection.apiKeyRequired && connection.apiKey === undefined) {
      throw new LLMAuthenticationError(
        `${this.model}: no API key. Set ${connection.apiKeyEnvVar} in the environment, or pass apiKey to new LLM({ ... }).`,
        { provider: this.id.provider, model: this.id.name },
      );
    }
    const errorContext: ErrorContext = {
      provider: this.id.provider,
      model: this.id.name,
      secrets: [connection.apiKey, ...credentialHeaderValues(this.#options.headers)],
      apiKeyEnvVar: connection.apiKeyEnvVar,
    };
    this.#built = { model: sdk.createProviderModel(this.id, connection, this.#options.headers), errorContext };
    return this.#built;
  }
}

const CREDENTIAL_HEADER = /^(authorization|proxy-authorization|x-api-key|api-key)$/i;

// Keys passed as headers (Azure's api-key, a gateway's Authorization) are redacted like apiKey.
function credentialHeaderValues(headers: Record<string, string> | undefined): string[] {
  if (headers === undefined) return [];
  return Object.entries(headers).flatMap(([name, value]) => (CREDENTIAL_HEADER.test(name) ? [value, value.replace(/^Bearer\s+/i, "")] : []));
}
