import { rejectedWith } from "./retry.js";
import { newId } from "../events/newId.js";
import { performance } from "node:perf_hooks";
import { eventBus } from "../events/index.js";
import { LLMError, LLMResponseError } from "./errors.js";
import { redactSecrets } from "./redact.js";
import { emptyUsage, type BaseLLM, type ChatMessage, type LLMCallOptions, type LLMResult, type TokenUsage } from "./types.js";

/**
 * Calls any BaseLLM (user-written ones too) the way every crewts component must: emits
 * llm_call_started / llm_call_completed / llm_call_failed with one callId, and normalizes the result.
 */
export function callLLM(llm: BaseLLM, messages: ChatMessage[], options: LLMCallOptions = {}): Promise<LLMResult> {
  return callLLMUnread(llm, messages, options).then((value) => normalizeResult(value, llm));
}

/**
 * callLLM for a caller that reads the reply through normalizeResult itself (the agent loop, which
 * thousands of runs in flight wait in): with nobody listening for LLM events, this is the model's own
 * promise, no frame or promise of this layer waits on it, and no callId is made (a model that emits
 * events of its own makes one). With listeners, the reply is already normalized.
 */
export function callLLMUnread(llm: BaseLLM, messages: ChatMessage[], options: LLMCallOptions = {}): Promise<unknown> {
  if (!eventBus.hasListeners("llm_call_started") && !eventBus.hasListeners("llm_call_completed") && !eventBus.hasListeners("llm_call_failed")) {
    try {
      return Promise.resolve(llm.call(messages, options));
    } catch (error) {
      // What the model threw, as it threw it (as an await inside an async function would).
      return rejectedWith(error);
    }
  }
  return callLLMWithEvents(llm, messages, options, options.callId ?? newId());
}

async function callLLMWithEvents(llm: BaseLLM, messages: ChatMessage[], options: LLMCallOptions, callId: string): Promise<LLMResult> {
  const source = options.source ?? {};
  // Payloads are built with Object.assign: `{ ...source, more }` takes a slow path in V8 (Node 20).
  if (eventBus.hasListeners("llm_call_started")) {
    // A copy: callers keep appending to their message list, and a listener must see what was sent.
    eventBus.emit("llm_call_started", Object.assign({}, source, { callId, model: llm.model, messages: [...messages], tools: options.tools?.map((tool) => tool.name) ?? [] }));
  }
  const started = performance.now();
  let result: LLMResult;
  try {
    result = normalizeResult(await llm.call(messages, withCallId(options, callId)), llm);
  } catch (error) {
    if (eventBus.hasListeners("llm_call_failed")) {
      eventBus.emit("llm_call_failed", {
        ...source,
        callId,
        model: llm.model,
        error: redactSecrets(error instanceof Error ? error.message : String(error)),
        ...(error instanceof LLMError && error.status !== undefined ? { status: error.status } : {}),
      });
    }
    throw error;
  }
  if (eventBus.hasListeners("llm_call_completed")) {
    eventBus.emit(
      "llm_call_completed",
      Object.assign({}, source, {
        callId,
        model: llm.model,
        response: result.text,
        toolCalls: result.toolCalls ?? [],
        usage: result.usage,
        durationMs: Math.round(performance.now() - started),
        ...(result.finishReason !== undefined ? { finishReason: result.finishReason } : {}),
      }),
    );
  }
  return result;
}

// Object.assign, not `{ ...options, callId }`: on Node 20 that spread makes a slow dictionary-mode object.
function withCallId(options: LLMCallOptions, callId: string): LLMCallOptions {
  if (options.callId === callId) return options;
  const sent = Object.assign({}, options);
  sent.callId = callId;
  return sent;
}

/** What a model's call() resolved to, as an LLMResult: user-written models may return a bare string or leave out usage; the rest of crewts relies on both. */
export function normalizeResult(value: unknown, llm: BaseLLM): LLMResult {
  if (typeof value === "string") return { text: value, usage: emptyUsage() };
  if (typeof value !== "object" || value === null) throw invalidResult(llm, `got ${value === null ? "null" : typeof value}`);
  const result = value as Partial<LLMResult>;
  if (result.text !== undefined && typeof result.text !== "string") throw invalidResult(llm, `text is ${typeof result.text}`);
  if (result.toolCalls !== undefined && !Array.isArray(result.toolCalls)) throw invalidResult(llm, "toolCalls is not an array");
  // A result with nothing to fill in (what crewts's own models return) goes on as it is: a copy made by
  // `{ ...result, text, usage }` is a slow dictionary-mode object on Node 20, and every later read of
  // the reply pays for it.
  if (typeof result.text === "string" && isWholeUsage(result.usage)) return result as LLMResult;
  const normalized = Object.assign({}, result) as LLMResult;
  normalized.text = result.text ?? "";
  normalized.usage = normalizeUsage(result.usage);
  return normalized;
}

function isWholeUsage(usage: Partial<TokenUsage> | undefined): boolean {
  return usage !== undefined && isCount(usage.promptTokens) && isCount(usage.completionTokens) && isCount(usage.totalTokens);
}

const isCount = (value: unknown): boolean => typeof value === "number" && Number.isFinite(value);

function normalizeUsage(usage: Partial<TokenUsage> | undefined): TokenUsage {
  const promptTokens = finite(usage?.promptTokens);
  const completionTokens = finite(usage?.completionTokens);
  return { promptTokens, completionTokens, totalTokens: usage?.totalTokens === undefined ? promptTokens + completionTokens : finite(usage.totalTokens) };
}

const finite = (value: unknown): number => (isCount(value) ? (value as number) : 0);

function invalidResult(llm: BaseLLM, problem: string): LLMResponseError {
  const slash = llm.model.indexOf("/");
  return new LLMResponseError(
    `${llm.model}: call() must resolve to { text: string, toolCalls?, usage } (an LLMResult), but ${problem}. Fix the model's call() implementation.`,
    { provider: slash > 0 ? llm.model.slice(0, slash) : "custom", model: slash > 0 ? llm.model.slice(slash + 1) : llm.model },
  );
}
