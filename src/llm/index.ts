export { LLM } from "./LLM.js";
export { llmOptionsSchema, DEFAULT_TIMEOUT_MS, type LLMOptions } from "./LLMOptions.js";
export { DEFAULT_TOTAL_TIMEOUT_MS } from "./CallDeadline.js";
export { LLMOptionsError, SUPPORTED_PROVIDERS, parseModelId, type ModelId, type Provider } from "./modelId.js";
export { callLLM } from "./callLLM.js";
export { resolveLLM, isBaseLLM, DEFAULT_MODEL } from "./resolveLLM.js";
export {
  LLMError,
  LLMAuthenticationError,
  LLMRateLimitError,
  LLMServerError,
  LLMTimeoutError,
  LLMConnectionError,
  LLMBadRequestError,
  LLMContextLengthExceededError,
  LLMResponseError,
  CONTEXT_LIMIT_PHRASES,
  isContextLimitMessage,
  type LLMErrorOptions,
} from "./errors.js";
export { redactSecrets } from "./redact.js";
export { CONTEXT_WINDOWS, CONTEXT_WINDOW_USAGE_RATIO, DEFAULT_CONTEXT_WINDOW, contextWindowOf, usableContextWindow } from "./contextWindow.js";
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry.js";
export { emptyUsageMetrics, addToUsageMetrics, type UsageMetrics } from "./UsageMetrics.js";
export {
  emptyUsage,
  type BaseLLM,
  type CallSource,
  type ChatMessage,
  type LLMCallOptions,
  type LLMResult,
  type TokenUsage,
  type ToolCall,
  type ToolSpec,
} from "./types.js";
