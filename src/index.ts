// The public API of crewts. Everything a user imports from "crewts" is re-exported here, and nothing else.
export * from "./events/index.js";
export {
  LLM,
  callLLM,
  resolveLLM,
  isBaseLLM,
  DEFAULT_MODEL,
  SUPPORTED_PROVIDERS,
  LLMError,
  LLMAuthenticationError,
  LLMRateLimitError,
  LLMServerError,
  LLMTimeoutError,
  LLMConnectionError,
  LLMBadRequestError,
  LLMContextLengthExceededError,
  LLMResponseError,
  LLMOptionsError,
  contextWindowOf,
  type LLMOptions,
  type Provider,
} from "./llm/index.js";
export type { BaseLLM, ChatMessage, LLMCallOptions, LLMResult, TokenUsage, ToolCall, ToolSpec, CallSource } from "./llm/types.js";
export type { UsageMetrics } from "./llm/UsageMetrics.js";
export { BaseTool, tool, sanitizeToolName, InMemoryToolCache, ToolRunner, ToolError, type ToolCache, type ToolDefinition, type ToolRunResult } from "./tools/index.js";
export * from "./agent/index.js";
export * from "./task/index.js";
export * from "./crew/index.js";
export { planTasks, applyPlans, PlanningError } from "./crew/planning.js";
export { trainCrew, loadTrainedAgents, trainedInstructionsFor, TrainingError, TRAINED_AGENTS_DATA_FILE, type TrainedAgentsData } from "./crew/training.js";
export { testCrew, CrewTestError } from "./crew/evaluation.js";
export { CrewReplayError } from "./crew/errors.js";
export * from "./knowledge/index.js";
export * from "./memory/index.js";
export * from "./flow/index.js";
export { FlowPlotError } from "./flow/plot/FlowPlotError.js";
export {
  storageDir,
  InMemoryTaskOutputStore,
  SQLiteTaskOutputStore,
  TaskOutputStoreError,
  StorageError,
  type StorageErrorCode,
  type StoredTaskOutput,
  type TaskOutputStore,
} from "./storage/index.js";
export * from "./project/index.js";
// Tracing (OpenTelemetry): off unless enableTracing() is called or CREWTS_TRACING=otel is set.
export {
  enableTracing,
  enableTracingFromEnv,
  envTracing,
  extractTraceContext,
  injectTraceContext,
  traceHeaders,
  withTraceContext,
  TracingConfigError,
  TracingUnavailableError,
  TRACING_ENV,
  type DisableTracing,
  type RemoteSpanContext,
  type TracingOptions,
} from "./tracing/index.js";

// Wave 2: cancellation, streaming, hooks, tool approvals.
export { KickoffAbortedError } from "./runtime/KickoffAbortedError.js";
export type { KickoffOptions } from "./runtime/KickoffOptions.js";
export { StreamingOutput } from "./runtime/StreamingOutput.js";
export type { StreamChunk } from "./runtime/StreamChunk.js";
export type { ForEachOptions } from "./crew/CrewOptions.js";
export type { AgentKickoffOptions } from "./agent/Agent.js";
export type { ToolRunContext, ApprovalRule } from "./tools/BaseTool.js";
export * from "./hooks/index.js";

// Durable runs: checkpoints, resume and fork.
export * from "./runtime/checkpoint/index.js";
export {
  MCPServerAdapter,
  MCPConnectionError,
  MCPConfigError,
  MCPDependencyError,
  MCPTool,
  createStaticToolFilter,
  createDynamicToolFilter,
  clearMCPToolListCache,
  type MCPServerAdapterOptions,
  type MCPServerReference,
  type MCPServerConfig,
  type MCPStdioConfig,
  type MCPHttpConfig,
  type MCPCommonConfig,
  type MCPToolFilter,
  type MCPStaticToolFilter,
  type MCPDynamicToolFilter,
  type MCPToolFilterContext,
  type MCPToolInfo,
} from "./mcp/index.js";

// Serve and scale out: the HTTP API, queue workers and Postgres stores. Their heavy dependencies
// (hono, @hono/node-server, bullmq, ioredis, pg) are optional peers loaded on first use.
export { createServer, type CreateServerOptions, type CrewtsServer } from "./serve/createServer.js";
export { crewController, flowController, type CrewFactory, type FlowFactory } from "./serve/projectController.js";
export type { KickoffRequest, KickoffState, KickoffWebhooks, RunBackend, RunController, RunEvent, RunOptions, RunStatus } from "./serve/types.js";
export { ServerConfigError } from "./serve/auth.js";
export { startWorker, type KickoffWorker, type KickoffWorkerOptions } from "./worker/KickoffWorker.js";
export { QueueRuns, type QueueRunsOptions } from "./worker/QueueRuns.js";
export { PostgresCheckpointStore, type PostgresCheckpointStoreOptions } from "./stores/postgres/PostgresCheckpointStore.js";
export { PostgresFlowPersistence, type PostgresFlowPersistenceOptions } from "./stores/postgres/PostgresFlowPersistence.js";
export { PostgresTaskOutputStore, type PostgresTaskOutputStoreOptions } from "./stores/postgres/PostgresTaskOutputStore.js";
export { PostgresStoreError } from "./stores/postgres/PostgresDatabase.js";
export { MissingPeerDependencyError } from "./storage/optionalPeer.js";
