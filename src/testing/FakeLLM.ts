import { abortReason, rejectedWith, sleep, untilAborted } from "../llm/retry.js";
import type { BaseLLM, ChatMessage, LLMCallOptions, LLMResult, TokenUsage, ToolCall } from "../llm/types.js";
import { cutAtStopSequence } from "./cutAtStopSequence.js";
import { textDeltas } from "./mockServer/wireProtocol.js";

/** A scripted tool call; `id` defaults to `call_<call index>_<position>`, e.g. "call_0_0". */
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
  /**
   * Keep every call in `calls` (default true). false keeps only `callCount`: for benchmarks and long
   * runs, where a copy of every prompt would be most of the memory and garbage collection measured.
   */
  record?: boolean;
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
  private calledTimes = 0;
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

  /** The `functionCalling` option (default false: agents use the text ReAct protocol). */
  supportsFunctionCalling(): boolean {
    return this.options.functionCalling ?? false;
  }

  /** Always true: scripted text is cut at the call's stop words, as a real model stops there. */
  supportsStopWords(): boolean {
    return true;
  }

  /** The `contextWindow` option (default 128,000). */
  contextWindowSize(): number {
    return this.options.contextWindow ?? 128_000;
  }

  /** Answers with the next scripted (or computed) response; an aborted signal rejects the call as LLM's does. */
  call(messages: ChatMessage[], options: LLMCallOptions = {}): Promise<LLMResult> {
    try {
      // Like LLM.call: a call whose signal is already aborted sends (and records) nothing.
      if (options.signal?.aborted) throw abortReason(options.signal);
      const callIndex = this.calledTimes++;
      const snapshot = this.options.record === false ? messages : messages.map((m) => ({ ...m }));
      if (this.options.record !== false) this.calls.push({ messages: snapshot, options });
      const next = this.next(snapshot, callIndex, options);
      // An answer at hand waits out the latency on a timer alone: benchmarks keep thousands of calls
      // waiting, and each then holds a timer and one callback.
      if (this.options.latencyMs && !options.signal && !isPromiseLike(next)) return sleep(this.options.latencyMs).then(() => this.answer(next, snapshot, callIndex, options));
      return this.respond(next, snapshot, callIndex, options);
    } catch (error) {
      return rejectedWith(error);
    }
  }

  private async respond(next: FakeResponse | Promise<FakeResponse>, snapshot: ChatMessage[], callIndex: number, options: LLMCallOptions): Promise<LLMResult> {
    // A responder that never settles still ends with the call's abort, as a real request does.
    const response = await untilAborted(next, options.signal);
    if (this.options.latencyMs) await sleep(this.options.latencyMs, options.signal);
    return this.answer(response, snapshot, callIndex, options);
  }

  private answer(response: FakeResponse, snapshot: ChatMessage[], callIndex: number, options: LLMCallOptions): LLMResult {
    if (response instanceof Error) throw response;
    const spec = toSpec(response, callIndex);
    const { text } = cutAtStopSequence(spec.text ?? "", options.stop ?? []);
    const toolCalls: ToolCall[] | undefined = spec.toolCalls?.map((c, i) => ({
      id: c.id ?? `call_${callIndex}_${i}`,
      name: c.name,
      arguments: c.arguments,
    }));
    // Word-sized deltas, as a real stream delivers them.
    if (options.stream && options.onToken) for (const delta of textDeltas(text)) options.onToken(delta);
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

  private next(messages: ChatMessage[], callIndex: number, options: LLMCallOptions): FakeResponse | Promise<FakeResponse> {
    if (typeof this.script === "function") return this.script(messages, callIndex, options);
    if (callIndex >= this.script.length) throw new FakeLLMExhaustedError(this.script.length, messages);
    return this.script[callIndex] as FakeResponse;
  }

  /** How many calls were made (also with record: false). */
  get callCount(): number {
    return this.calledTimes;
  }

  /** How many scripted responses have not been used yet (0 for a function). */
  get remaining(): number {
    return Array.isArray(this.script) ? Math.max(0, this.script.length - this.calledTimes) : 0;
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";
}

// A responder that forgot to return (or a hole in the script) gets a message, not a TypeError from deep inside.
function toSpec(response: unknown, callIndex: number): Exclude<FakeResponse, string | Error> {
  if (typeof response === "string") return { text: response };
  if (typeof response === "object" && response !== null) return response;
  throw new TypeError(
    `FakeLLM response for call #${callIndex + 1} must be a string, an Error or { text?, toolCalls?, usage? }, ` +
      `got ${response === null ? "null" : typeof response}. A responder function must return (or resolve to) one of these.`,
  );
}

