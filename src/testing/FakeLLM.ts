import type { BaseLLM, ChatMessage, LLMCallOptions, LLMResult, TokenUsage, ToolCall } from "../llm/types.js";

/** A scripted tool call; `id` defaults to `call_<n>`. */
export interface FakeToolCall {
  id?: string;
  name: string;
  arguments: Record<string, unknown> | string;
}

/** One scripted answer: plain text, or text and/or tool calls with optional usage. An Error is thrown as the call's failure. */
export type FakeResponse = string | Error | { text?: string; toolCalls?: FakeToolCall[]; usage?: Partial<TokenUsage> };

/** Computes the answer of call number `callIndex` (0-based) from its messages. */
export type FakeResponder = (messages: ChatMessage[], callIndex: number, options: LLMCallOptions) => FakeResponse | Promise<FakeResponse>;

/** Options of a FakeLLM. */
export interface FakeLLMOptions {
  /** Delay of every call, in milliseconds (timer-based, never a busy wait). */
  latencyMs?: number;
  /** Token counts reported for every call; default: counted from the text (about 4 characters a token). */
  usage?: Partial<TokenUsage>;
  /** What supportsFunctionCalling() returns; false (the default) makes agents use the text ReAct protocol. */
  functionCalling?: boolean;
  /** What contextWindowSize() returns (default 128,000). */
  contextWindow?: number;
  /** The model name (default "fake/fake-llm"). */
  model?: string;
}

/** A recorded call: the messages as sent and the options that came with them. */
export interface FakeLLMCall {
  messages: ChatMessage[];
  options: LLMCallOptions;
}

/** Thrown when a scripted FakeLLM is called more often than it has answers. */
export class FakeLLMExhaustedError extends Error {
  constructor(count: number, messages: ChatMessage[]) {
    const last = messages.at(-1)?.content ?? "";
    super(
      `FakeLLM has no scripted response left: it was given ${count} and this is call #${count + 1}. ` +
        `Add a response for this call, or pass a function to compute responses. Last message: ${JSON.stringify(last.slice(0, 200))}`,
    );
    this.name = "FakeLLMExhaustedError";
  }
}

const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

/** A model that answers from a script or a function, records every call, and never touches the network. */
export class FakeLLM implements BaseLLM {
  readonly model: string;
  /** Every call, in order. */
  readonly calls: FakeLLMCall[] = [];
  private readonly script: FakeResponse[] | FakeResponder;
  private readonly options: FakeLLMOptions;

  constructor(responses: FakeResponse[] | FakeResponder, options: FakeLLMOptions = {}) {
    if (!Array.isArray(responses) && typeof responses !== "function") {
      throw new TypeError("FakeLLM needs an array of responses or a function (messages, callIndex) => response.");
    }
    this.script = Array.isArray(responses) ? [...responses] : responses;
    this.options = options;
    this.model = options.model ?? "fake/fake-llm";
  }

  supportsFunctionCalling(): boolean {
    return this.options.functionCalling ?? false;
  }

  supportsStopWords(): boolean {
    return true;
  }

  contextWindowSize(): number {
    return this.options.contextWindow ?? 128_000;
  }

  async call(messages: ChatMessage[], options: LLMCallOptions = {}): Promise<LLMResult> {
    const callIndex = this.calls.length;
    const snapshot = messages.map((m) => ({ ...m }));
    this.calls.push({ messages: snapshot, options });
    const response = await this.next(snapshot, callIndex, options);
    if (this.options.latencyMs) await delay(this.options.latencyMs, options.signal);
    if (response instanceof Error) throw response;
    const spec = typeof response === "string" ? { text: response } : response;
    let text = spec.text ?? "";
    for (const stop of options.stop ?? []) {
      const at = stop ? text.indexOf(stop) : -1;
      if (at >= 0) text = text.slice(0, at);
    }
    const toolCalls: ToolCall[] | undefined = spec.toolCalls?.map((c, i) => ({
      id: c.id ?? `call_${callIndex}_${i}`,
      name: c.name,
      arguments: c.arguments,
    }));
    if (options.stream && options.onToken && text) options.onToken(text);
    const promptTokens = spec.usage?.promptTokens ?? this.options.usage?.promptTokens ?? estimateTokens(snapshot.map((m) => m.content).join("\n"));
    const completionTokens = spec.usage?.completionTokens ?? this.options.usage?.completionTokens ?? estimateTokens(text);
    const totalTokens = spec.usage?.totalTokens ?? this.options.usage?.totalTokens ?? promptTokens + completionTokens;
    return {
      text,
      ...(toolCalls && toolCalls.length > 0 ? { toolCalls } : {}),
      usage: { promptTokens, completionTokens, totalTokens },
      finishReason: toolCalls?.length ? "tool-calls" : "stop",
    };
  }

  /** How many scripted responses have not been used yet (0 for a function). */
  get remaining(): number {
    return Array.isArray(this.script) ? Math.max(0, this.script.length - this.calls.length) : 0;
  }

  private async next(messages: ChatMessage[], callIndex: number, options: LLMCallOptions): Promise<FakeResponse> {
    if (typeof this.script === "function") return this.script(messages, callIndex, options);
    const response = this.script[callIndex];
    if (response === undefined) throw new FakeLLMExhaustedError(this.script.length, messages);
    return response;
  }
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
