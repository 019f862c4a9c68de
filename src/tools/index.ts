export { BaseTool, type ParseArgsResult } from "./BaseTool.js";
export { tool, type ToolDefinition } from "./tool.js";
export { sanitizeToolName, MAX_TOOL_NAME_LENGTH } from "./sanitize.js";
export { InMemoryToolCache, type ToolCache } from "./ToolCache.js";
export { ToolRunner, type ToolRunRequest, type ToolRunResult, type ToolRunnerOptions } from "./ToolRunner.js";
export { ToolError } from "./ToolError.js";
