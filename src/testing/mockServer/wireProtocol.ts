/** What the mock server needs to know about a completion request, whatever its wire protocol. */
export interface CompletionRequest {
  model: string | undefined;
  stream: boolean;
  /** Whether a streamed answer must report usage (OpenAI only does when `stream_options.include_usage`). */
  includeUsage: boolean;
  stopSequences: string[];
  /** All message text, for the default prompt token count. */
  promptText: string;
  /** Text of the last user message, for the echo responder. */
  lastUserText: string;
}

/** A scripted response made ready for the wire: stop sequences applied, ids and usage filled in. */
export interface ScriptedAnswer {
  text: string;
  /** The stop sequence that cut the text, if one did. */
  stopSequence: string | undefined;
  /** Arguments as the JSON text a model would emit. */
  toolCalls: { id: string; name: string; arguments: string }[];
  usage: { promptTokens: number; completionTokens: number };
}

/** Identity of one answer on the wire. */
export interface ResponseMeta {
  id: string;
  model: string;
  /** Unix seconds. */
  created: number;
}

/** One provider's wire format: how to read a request and how to write answers and errors. */
export interface WireProtocol {
  /** Prefix of generated tool call ids ("call" for OpenAI, "toolu" for Anthropic). */
  readonly toolCallIdPrefix: string;
  /** Reads a parsed request body; returns a message saying what is wrong when it is not a valid request. */
  parseRequest(body: unknown): CompletionRequest | string;
  jsonResponse(answer: ScriptedAnswer, meta: ResponseMeta): unknown;
  /** The complete SSE stream, one string per event. */
  streamEvents(answer: ScriptedAnswer, meta: ResponseMeta, includeUsage: boolean): string[];
  /** The provider's JSON error body for an HTTP status. */
  errorBody(status: number, message: string): unknown;
}

/** Narrows to a plain JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The text of a message content in either protocol: a string, or parts with `text`, nested `content`
 * (Anthropic tool_result) or `input` (Anthropic tool_use).
 */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map(contentText).join("");
  if (!isRecord(content)) return "";
  if (typeof content.text === "string") return content.text;
  if (content.content !== undefined) return contentText(content.content);
  if (content.input !== undefined) return JSON.stringify(content.input);
  return "";
}

/** The text of one message, OpenAI tool call arguments included (they cost prompt tokens too). */
export function messageText(message: unknown): string {
  if (!isRecord(message)) return "";
  let text = contentText(message.content);
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      if (isRecord(call) && isRecord(call.function) && typeof call.function.arguments === "string") text += call.function.arguments;
    }
  }
  return text;
}

/** The text of the last message with role "user" ("" when there is none). */
export function lastUserText(messages: unknown[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (isRecord(message) && message.role === "user") return contentText(message.content);
  }
  return "";
}

/** Splits text into word-sized stream deltas that join back to exactly the text. */
export function textDeltas(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** Splits tool call arguments into a few pieces, so clients must reassemble them as with a real API. */
export function argumentDeltas(args: string, size = 16): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < args.length; at += size) pieces.push(args.slice(at, at + size));
  return pieces;
}
