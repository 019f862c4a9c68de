import { argumentDeltas, isRecord, lastUserText, messageText, textDeltas } from "./wireProtocol.js";
import type { ScriptedAnswer, WireProtocol } from "./wireProtocol.js";

// Error `type` and `code` as the OpenAI API sends them for each status.
const ERROR_KINDS: Record<number, { type: string; code: string }> = {
  400: { type: "invalid_request_error", code: "invalid_request" },
  401: { type: "invalid_request_error", code: "invalid_api_key" },
  403: { type: "invalid_request_error", code: "permission_denied" },
  404: { type: "invalid_request_error", code: "not_found" },
  429: { type: "requests", code: "rate_limit_exceeded" },
};

const usageOf = (answer: ScriptedAnswer) => ({
  prompt_tokens: answer.usage.promptTokens,
  completion_tokens: answer.usage.completionTokens,
  total_tokens: answer.usage.promptTokens + answer.usage.completionTokens,
});

const finishReasonOf = (answer: ScriptedAnswer) => (answer.toolCalls.length > 0 ? "tool_calls" : "stop");

const sse = (data: unknown): string => `data: ${JSON.stringify(data)}\n\n`;

/** The OpenAI chat completions protocol (POST /v1/chat/completions), JSON and SSE. */
export const openaiProtocol: WireProtocol = {
  toolCallIdPrefix: "call",

  parseRequest(body) {
    if (!isRecord(body) || !Array.isArray(body.messages)) {
      return "the request body must be a JSON object with a `messages` array (OpenAI chat completions API)";
    }
    const messages: unknown[] = body.messages;
    const stop = body.stop;
    return {
      model: typeof body.model === "string" ? body.model : undefined,
      stream: body.stream === true,
      includeUsage: isRecord(body.stream_options) && body.stream_options.include_usage === true,
      stopSequences: typeof stop === "string" ? [stop] : Array.isArray(stop) ? stop.filter((s): s is string => typeof s === "string") : [],
      promptText: messages.map(messageText).join(""),
      lastUserText: lastUserText(messages),
    };
  },

  jsonResponse(answer, meta) {
    const toolCalls = answer.toolCalls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
    return {
      id: meta.id,
      object: "chat.completion",
      created: meta.created,
      model: meta.model,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            // The real API sends null content with tool calls and no text.
            content: answer.text === "" && toolCalls.length > 0 ? null : answer.text,
            refusal: null,
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          },
          logprobs: null,
          finish_reason: finishReasonOf(answer),
        },
      ],
      usage: usageOf(answer),
    };
  },

  streamEvents(answer, meta, includeUsage) {
    const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
      sse({
        id: meta.id,
        object: "chat.completion.chunk",
        created: meta.created,
        model: meta.model,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      });
    // First chunk carries the role, as the real API does; content is "" only when text follows.
    const events = [chunk({ role: "assistant", content: answer.text === "" ? null : "", refusal: null })];
    for (const piece of textDeltas(answer.text)) events.push(chunk({ content: piece }));
    answer.toolCalls.forEach((call, index) => {
      events.push(chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
      for (const piece of argumentDeltas(call.arguments)) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    });
    events.push(chunk({}, finishReasonOf(answer)));
    if (includeUsage) {
      events.push(sse({ id: meta.id, object: "chat.completion.chunk", created: meta.created, model: meta.model, choices: [], usage: usageOf(answer) }));
    }
    events.push("data: [DONE]\n\n");
    return events;
  },

  errorBody(status, message) {
    const kind = ERROR_KINDS[status] ?? (status >= 500 ? { type: "server_error", code: "server_error" } : { type: "invalid_request_error", code: "error" });
    return { error: { message, type: kind.type, param: null, code: kind.code } };
  },
};

/** The OpenAI model list (GET /v1/models). */
export function openaiModelList(model: string): unknown {
  return { object: "list", data: [{ id: model, object: "model", created: 0, owned_by: "crewts-mock" }] };
}
