import { argumentDeltas, contentText, isRecord, lastUserText, messageText, textDeltas } from "./wireProtocol.js";
import type { ScriptedAnswer, WireProtocol } from "./wireProtocol.js";

// Error types as the Anthropic API names them for each status.
const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  529: "overloaded_error",
};

const stopReasonOf = (answer: ScriptedAnswer) =>
  answer.toolCalls.length > 0 ? "tool_use" : answer.stopSequence !== undefined ? "stop_sequence" : "end_turn";

/** Tool input must be a JSON object on this protocol; a raw string that does not parse is sent as is. */
function toolInput(args: string): unknown {
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

const sse = (data: { type: string } & Record<string, unknown>): string => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;

/** The Anthropic Messages protocol (POST /v1/messages), JSON and SSE. */
export const anthropicProtocol: WireProtocol = {
  toolCallIdPrefix: "toolu",

  parseRequest(body) {
    if (!isRecord(body) || !Array.isArray(body.messages)) {
      return "messages: Field required (the request body must be a JSON object with a `messages` array, Anthropic Messages API)";
    }
    const messages: unknown[] = body.messages;
    const stop = body.stop_sequences;
    return {
      model: typeof body.model === "string" ? body.model : undefined,
      stream: body.stream === true,
      includeUsage: true,
      stopSequences: Array.isArray(stop) ? stop.filter((s): s is string => typeof s === "string") : [],
      promptText: contentText(body.system) + messages.map(messageText).join(""),
      lastUserText: lastUserText(messages),
    };
  },

  jsonResponse(answer, meta) {
    const content: unknown[] = [];
    if (answer.text !== "") content.push({ type: "text", text: answer.text });
    for (const call of answer.toolCalls) content.push({ type: "tool_use", id: call.id, name: call.name, input: toolInput(call.arguments) });
    return {
      id: meta.id,
      type: "message",
      role: "assistant",
      model: meta.model,
      content,
      stop_reason: stopReasonOf(answer),
      stop_sequence: answer.stopSequence ?? null,
      usage: { input_tokens: answer.usage.promptTokens, output_tokens: answer.usage.completionTokens },
    };
  },

  streamEvents(answer, meta) {
    const events = [
      sse({
        type: "message_start",
        message: {
          id: meta.id,
          type: "message",
          role: "assistant",
          model: meta.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: answer.usage.promptTokens, output_tokens: 0 },
        },
      }),
      sse({ type: "ping" }),
    ];
    let index = 0;
    if (answer.text !== "") {
      events.push(sse({ type: "content_block_start", index, content_block: { type: "text", text: "" } }));
      for (const text of textDeltas(answer.text)) events.push(sse({ type: "content_block_delta", index, delta: { type: "text_delta", text } }));
      events.push(sse({ type: "content_block_stop", index }));
      index++;
    }
    for (const call of answer.toolCalls) {
      events.push(sse({ type: "content_block_start", index, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } }));
      // The real API opens every tool input with an empty partial_json.
      for (const partial_json of ["", ...argumentDeltas(call.arguments)]) {
        events.push(sse({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } }));
      }
      events.push(sse({ type: "content_block_stop", index }));
      index++;
    }
    events.push(
      sse({
        type: "message_delta",
        delta: { stop_reason: stopReasonOf(answer), stop_sequence: answer.stopSequence ?? null },
        usage: { output_tokens: answer.usage.completionTokens },
      }),
      sse({ type: "message_stop" }),
    );
    return events;
  },

  errorBody(status, message) {
    return { type: "error", error: { type: ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error"), message } };
  },
};
