import { cutAtStopSequence } from "../cutAtStopSequence.js";
import type { MockResponse } from "./types.js";
import { isRecord } from "./wireProtocol.js";
import type { CompletionRequest, ScriptedAnswer } from "./wireProtocol.js";

const estimateTokens = (characters: number): number => Math.ceil(characters / 4);

/** The default answer when no responses are scripted: a ReAct final answer echoing the user. */
export function echoResponse(request: CompletionRequest): MockResponse {
  return `Thought: I now know the final answer\nFinal Answer: ${request.lastUserText}`;
}

/** Turns a scripted response into a wire-ready answer; throws a TypeError on a malformed response. */
export function toScriptedAnswer(response: MockResponse, request: CompletionRequest, toolCallId: (i: number) => string): ScriptedAnswer {
  const spec = typeof response === "string" ? { text: response } : response;
  if (!isRecord(spec)) {
    throw new TypeError(`a scripted response must be a string or { text?, toolCalls?, usage? }, got ${JSON.stringify(response)}`);
  }
  const { text, stopSequence } = cutAtStopSequence(typeof spec.text === "string" ? spec.text : "", request.stopSequences);

  const toolCalls = (spec.toolCalls ?? []).map((call, i) => {
    if (!isRecord(call) || typeof call.name !== "string") {
      throw new TypeError(`a scripted tool call needs a string name, got ${JSON.stringify(call)}`);
    }
    return {
      id: call.id ?? toolCallId(i),
      name: call.name,
      arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {}),
    };
  });
  const completionCharacters = text.length + toolCalls.reduce((sum, call) => sum + call.arguments.length, 0);
  return {
    text,
    stopSequence,
    toolCalls,
    usage: {
      promptTokens: spec.usage?.promptTokens ?? estimateTokens(request.promptText.length),
      completionTokens: spec.usage?.completionTokens ?? estimateTokens(completionCharacters),
    },
  };
}
