import { HookBlockedError } from "../hooks/HookBlockedError.js";
import { hasLLMHooks, runAfterLLMCall, runBeforeLLMCall } from "../hooks/runHooks.js";
import type { CrewHooks, LLMCallHookContext } from "../hooks/types.js";
import { callLLM, callLLMUnread } from "../llm/callLLM.js";
import type { BaseLLM, CallSource, ChatMessage, LLMCallOptions, LLMResult, ToolCall } from "../llm/types.js";
import { currentRun, type RunContext } from "../runtime/runContext.js";
import type { StreamChunk } from "../runtime/StreamChunk.js";

/**
 * One LLM call of an agent, as the run it belongs to wants it: through the LLM call hooks when any
 * is registered, and streamed to the run's chunk sink when the run streams. A plain run goes
 * straight to callLLMUnread after one context read. Resolves to the reply as the model gave it:
 * the caller reads it with normalizeResult.
 */
export function callModel(llm: BaseLLM, messages: ChatMessage[], options: LLMCallOptions, source: CallSource, iterations: number): Promise<unknown> {
  const run = currentRun();
  const scoped = run?.hooks as CrewHooks | undefined;
  // Not an async function: a plain call adds no promise of its own to the model's (the caller reads
  // the reply with normalizeResult).
  if (!hasLLMHooks(scoped)) return run?.sink ? streamedCall(llm, messages, options, source, run) : callLLMUnread(llm, messages, options);
  return hookedCall(llm, messages, options, source, iterations, run, scoped);
}

/** A call through the LLM call hooks: they may change the messages, block the call, or change the reply. */
async function hookedCall(llm: BaseLLM, messages: ChatMessage[], options: LLMCallOptions, source: CallSource, iterations: number, run: RunContext | undefined, scoped: CrewHooks | undefined): Promise<LLMResult> {
  const ctx: LLMCallHookContext = { messages, llm, iterations, response: "", agentRole: source.agentRole ?? "" };
  for (const key of ["agentId", "taskName", "taskId", "crewId"] as const) if (source[key] !== undefined) ctx[key] = source[key];
  if (!(await runBeforeLLMCall(ctx, scoped))) throw new HookBlockedError(ctx.agentRole);
  const result = run?.sink ? await streamedCall(llm, ctx.messages, options, source, run) : await callLLM(llm, ctx.messages, options);
  ctx.response = result.text;
  const response = await runAfterLLMCall(ctx, scoped);
  return response === result.text ? result : { ...result, text: response };
}

/** Calls the model streaming, each delta and tool call becoming a chunk; a model that cannot stream gives its whole reply as one chunk. */
async function streamedCall(llm: BaseLLM, messages: ChatMessage[], options: LLMCallOptions, source: CallSource, run: RunContext): Promise<LLMResult> {
  const sink = run.sink!;
  const taskIndex = source.taskId !== undefined && run.taskIds ? run.taskIds.indexOf(source.taskId) : -1;
  const base = {
    taskName: source.taskName ?? "",
    taskIndex,
    agentRole: source.agentRole ?? "",
    ...(run.methodName !== undefined ? { methodName: run.methodName } : {}),
    ...(run.runIndex !== undefined ? { runIndex: run.runIndex } : {}),
  };
  let textSent = false;
  let callsSent = false;
  const toolCallChunk = (call: ToolCall): StreamChunk => ({
    ...base,
    content: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
    chunkType: "tool_call",
    toolCall: { id: call.id, name: call.name, arguments: call.arguments },
  });
  const onToken = options.onToken;
  const result = await callLLM(llm, messages, {
    ...options,
    stream: true,
    onToken: (delta) => {
      textSent = true;
      onToken?.(delta);
      sink({ ...base, content: delta, chunkType: "text" });
    },
    onToolCall: (call) => {
      callsSent = true;
      options.onToolCall?.(call);
      sink(toolCallChunk(call));
    },
  });
  if (!textSent && result.text !== "") sink({ ...base, content: result.text, chunkType: "text" });
  if (!callsSent) for (const call of result.toolCalls ?? []) sink(toolCallChunk(call));
  return result;
}
