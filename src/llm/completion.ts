import { generateText, streamText, type LanguageModel, type LanguageModelUsage, type ModelMessage, type ToolSet } from "ai";
import { fromSdkToolCalls, toTokenUsage, type SdkToolCall } from "./modelMessages.js";
import type { LLMResult } from "./types.js";

/** One request to the provider, ready for the AI SDK. */
export interface CompletionRequest {
  model: LanguageModel;
  messages: ModelMessage[];
  tools?: ToolSet;
  stopSequences?: string[];
  temperature?: number;
  maxOutputTokens?: number;
  /** Extra HTTP headers of this request only (the trace context under tracing). */
  headers?: Record<string, string>;
}

// Retries and timeouts are ours (Retry-After, jitter, per-attempt events); our framework writes
// the system messages, so the SDK's prompt-injection warning about them does not apply.
const sdkSettings = (request: CompletionRequest, signal: AbortSignal) => ({
  model: request.model,
  messages: request.messages,
  allowSystemInMessages: true,
  maxRetries: 0,
  abortSignal: signal,
  ...(request.tools !== undefined ? { tools: request.tools } : {}),
  ...(request.stopSequences !== undefined ? { stopSequences: request.stopSequences } : {}),
  ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
  ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
  ...(request.headers !== undefined ? { headers: request.headers } : {}),
});

/** Sends one non-streaming request; SDK errors are thrown as they come (the caller maps them). */
export async function completeText(request: CompletionRequest, signal: AbortSignal): Promise<LLMResult> {
  const result = await generateText(sdkSettings(request, signal));
  return toResult(result.text, result.toolCalls, result.totalUsage, result.finishReason);
}

/**
 * Sends one streaming request, handing each text delta to `onDelta`. streamText reports HTTP
 * errors as stream parts (and through onError) instead of throwing, so they are captured and thrown here.
 */
export async function streamCompletion(
  request: CompletionRequest,
  signal: AbortSignal,
  onDelta: (delta: string) => void,
  onToolCall?: (call: SdkToolCall) => void,
): Promise<LLMResult> {
  let failure: { error: unknown } | undefined;
  const result = streamText({
    ...sdkSettings(request, signal),
    onError: ({ error }) => {
      failure ??= { error };
    },
  });
  let text = "";
  const toolCalls: SdkToolCall[] = [];
  let usage: LanguageModelUsage | undefined;
  let finishReason: string | undefined;
  for await (const part of result.fullStream) {
    switch (part.type) {
      case "text-delta":
        if (part.text === "") break;
        text += part.text;
        onDelta(part.text);
        break;
      case "tool-call":
        toolCalls.push(part);
        onToolCall?.(part);
        break;
      case "finish":
        usage = part.totalUsage;
        finishReason = part.finishReason;
        break;
      case "error":
        failure ??= { error: part.error };
        break;
      default:
        break;
    }
  }
  if (failure !== undefined) throw failure.error;
  // An aborted stream ends quietly; the caller tells a timeout from a user abort.
  signal.throwIfAborted();
  return toResult(text, toolCalls, usage, finishReason);
}

function toResult(text: string, calls: readonly SdkToolCall[], usage: LanguageModelUsage | undefined, finishReason: string | undefined): LLMResult {
  const result: LLMResult = { text, usage: toTokenUsage(usage) };
  if (calls.length > 0) result.toolCalls = fromSdkToolCalls(calls);
  if (finishReason !== undefined) result.finishReason = finishReason;
  return result;
}
