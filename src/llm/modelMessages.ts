import { jsonSchema, type AssistantContent, type JSONSchema7, type LanguageModelUsage, type ModelMessage, type ToolResultPart, type ToolSet } from "ai";
import type { ChatMessage, TokenUsage, ToolCall, ToolSpec } from "./types.js";

/** Options of toModelMessages. */
export interface ModelMessageOptions {
  /** Anthropic only accepts tool inputs that are objects; unparsable arguments are wrapped for it. */
  objectToolInputs?: boolean;
}

/** Converts our messages to AI SDK messages; consecutive tool results become one tool message. */
export function toModelMessages(messages: readonly ChatMessage[], options: ModelMessageOptions = {}): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "system":
      case "user":
        out.push({ role: message.role, content: message.content });
        break;
      case "assistant": {
        const calls = message.toolCalls ?? [];
        if (calls.length === 0) {
          // An empty turn says nothing, and Anthropic rejects empty text blocks.
          if (message.content !== "") out.push({ role: "assistant", content: message.content });
          break;
        }
        const content: AssistantContent = [];
        if (message.content !== "") content.push({ type: "text", text: message.content });
        for (const call of calls) {
          content.push({ type: "tool-call", toolCallId: call.id, toolName: call.name, input: toolInput(call.arguments, options) });
        }
        out.push({ role: "assistant", content });
        break;
      }
      case "tool": {
        const part: ToolResultPart = {
          type: "tool-result",
          toolCallId: message.toolCallId,
          toolName: message.toolName,
          output: { type: "text", value: message.content },
        };
        const last = out.at(-1);
        if (last?.role === "tool") last.content.push(part);
        else out.push({ role: "tool", content: [part] });
        break;
      }
    }
  }
  return out;
}

// Arguments the model sent as text that is not a JSON object go back as that text, which OpenAI
// accepts; Anthropic needs an object, so there they are wrapped.
function toolInput(args: ToolCall["arguments"], options: ModelMessageOptions): unknown {
  if (typeof args !== "string") return args;
  const parsed = parseJsonObject(args);
  if (parsed !== undefined) return parsed;
  return options.objectToolInputs ? { input: args } : args;
}

/** Converts tool specs to AI SDK tools without `execute`, so calls come back to us instead of running. */
export function toToolSet(tools: readonly ToolSpec[]): ToolSet {
  const set: ToolSet = {};
  for (const spec of tools) {
    set[spec.name] = { description: spec.description, inputSchema: jsonSchema(spec.parameters as JSONSchema7) };
  }
  return set;
}

/** A tool call as the AI SDK reports it (valid or not). */
export interface SdkToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** Converts AI SDK tool calls; arguments that are not a JSON object stay the model's raw text. */
export function fromSdkToolCalls(calls: readonly SdkToolCall[]): ToolCall[] {
  return calls.map(fromSdkToolCall);
}

/** One AI SDK tool call as ours. */
export function fromSdkToolCall(call: SdkToolCall): ToolCall {
  return { id: call.toolCallId, name: call.toolName, arguments: toolArguments(call.input) };
}

function toolArguments(input: unknown): ToolCall["arguments"] {
  if (typeof input === "string") return input.trim() === "" ? {} : (parseJsonObject(input) ?? input);
  if (typeof input === "object" && input !== null && !Array.isArray(input)) return input as Record<string, unknown>;
  // No arguments at all means an empty object; any other JSON value is kept as its text.
  return input === undefined || input === null ? {} : JSON.stringify(input);
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Converts AI SDK usage; missing counts are 0 and a missing total is the sum. */
export function toTokenUsage(usage: LanguageModelUsage | undefined): TokenUsage {
  const promptTokens = usage?.inputTokens ?? 0;
  const completionTokens = usage?.outputTokens ?? 0;
  return { promptTokens, completionTokens, totalTokens: usage?.totalTokens ?? promptTokens + completionTokens };
}
