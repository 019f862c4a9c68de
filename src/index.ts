export * from "./events/index.js";
export type { BaseLLM, ChatMessage, LLMCallOptions, LLMResult, TokenUsage, ToolCall, ToolSpec, CallSource } from "./llm/types.js";
