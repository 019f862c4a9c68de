export { Agent } from "./Agent.js";
export type { AgentOptions } from "./AgentOptions.js";
export { AgentOutput } from "./AgentOutput.js";
export type { AgentStep } from "./AgentExecutor.js";
export type { AgentTask } from "./promptBuilder.js";
export { AgentConfigError, AgentTimeoutError, ContextWindowExceededError } from "./errors.js";
export { ConverterError, convertToSchema } from "./OutputConverter.js";
export { OutputParserError } from "./parser.js";
export { RpmLimiter } from "./RpmLimiter.js";
