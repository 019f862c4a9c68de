// The public API of crewts: what ../shared/API.md lists, plus what a user needs to extend crewts
// (base classes, interfaces, errors, event types). Helpers the library uses inside stay out; tests
// import those from their modules. test/index.exports.test.ts pins the list of runtime names.

// LLMs
export { LLM } from "./llm/LLM.js";
export type { LLMOptions } from "./llm/LLMOptions.js";
export { SUPPORTED_PROVIDERS, type Provider } from "./llm/modelId.js";
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
  LLMOptionsError,
} from "./llm/index.js";
export type { BaseLLM, ChatMessage, LLMCallOptions, LLMResult, TokenUsage, ToolCall, ToolSpec, CallSource } from "./llm/types.js";
export type { UsageMetrics } from "./llm/UsageMetrics.js";

// Tools
export { BaseTool, type ParseArgsResult } from "./tools/BaseTool.js";
export { tool, type ToolDefinition } from "./tools/tool.js";
export { ToolError } from "./tools/ToolError.js";
export type { ToolCache } from "./tools/ToolCache.js";

// Agents
export { Agent } from "./agent/Agent.js";
export type { AgentOptions } from "./agent/AgentOptions.js";
export { AgentOutput } from "./agent/AgentOutput.js";
export type { AgentGuardrail, AgentGuardrailFunction, AgentGuardrailContext } from "./agent/agentGuardrail.js";
export type { AgentStep } from "./agent/AgentExecutor.js";
export type { AgentTask } from "./agent/promptBuilder.js";
export { AgentConfigError, AgentTimeoutError, ContextWindowExceededError } from "./agent/errors.js";
export { ConverterError } from "./agent/OutputConverter.js";
export { OutputParserError } from "./agent/parser.js";

// Tasks
export { Task, type TaskExecuteOptions } from "./task/Task.js";
export { ConditionalTask, type ConditionalTaskOptions } from "./task/ConditionalTask.js";
export type { TaskOptions } from "./task/TaskOptions.js";
export { TaskOutput, type TaskOutputInit } from "./task/TaskOutput.js";
export { GuardrailError, TaskValidationError, InterpolationError, OutputFilePathError } from "./task/errors.js";
export type { Guardrail, GuardrailFunction, GuardrailResult, GuardrailContext } from "./task/guardrails.js";
export { llmGuardrail, type LLMGuardrailOptions } from "./task/LLMGuardrail.js";
export { setHumanInputProvider, HumanInputError, type HumanInputProvider, type HumanInputFunction, type HumanInputContext } from "./task/humanInput.js";

// Crews
export { Crew } from "./crew/Crew.js";
export type { MemoryKind } from "./crew/memoryReset.js";
export { CrewOutput, type CrewOutputInit } from "./crew/CrewOutput.js";
export type { CrewOptions, KickoffInputs, BeforeKickoffHook, AfterKickoffHook } from "./crew/CrewOptions.js";
export { Process } from "./crew/Process.js";
export { CrewValidationError, CrewMemoryError, CrewOutputError, CrewReplayError, type EmptyTaskOutput } from "./crew/errors.js";
export { DelegateWorkTool, AskQuestionTool } from "./crew/delegation.js";
export { PlanningError } from "./crew/planning.js";
export { TrainingError, type TrainCrewOptions, type TrainingResult, type TrainingFeedback, type TrainedAgentsData } from "./crew/training.js";
export { CrewTestError, type TestCrewOptions, type CrewTestResult } from "./crew/evaluation.js";

// Flows
export { Flow, type FlowInputs, type FlowOptions } from "./flow/Flow.js";
export { start, type FlowMethodDecorator } from "./flow/start.js";
export { listen } from "./flow/listen.js";
export { router, type RouterOptions } from "./flow/router.js";
export { and } from "./flow/conditions/and.js";
export { or } from "./flow/conditions/or.js";
export type { CompoundCondition, FlowCondition } from "./flow/conditions/FlowCondition.js";
export type { FlowState, InitialState, StateSchema } from "./flow/flowState.js";
export { FlowDefinitionError, FlowMethodCallLimitError, FlowRouterError, FlowStateError } from "./flow/errors.js";
export { persist } from "./flow/persistence/persist.js";
export type { FlowPersistence } from "./flow/persistence/FlowPersistence.js";
export { InMemoryFlowPersistence } from "./flow/persistence/InMemoryFlowPersistence.js";
export { SQLiteFlowPersistence } from "./flow/persistence/SQLiteFlowPersistence.js";
export { FlowPlotError } from "./flow/plot/FlowPlotError.js";

// Knowledge
export { Knowledge, type KnowledgeConfig, type KnowledgeOptions, type KnowledgeResult } from "./knowledge/Knowledge.js";
export {
  BaseKnowledgeSource,
  BaseFileKnowledgeSource,
  StringKnowledgeSource,
  TextFileKnowledgeSource,
  PDFKnowledgeSource,
  CSVKnowledgeSource,
  JSONKnowledgeSource,
  ExcelKnowledgeSource,
  KnowledgeSourceError,
  type BaseKnowledgeSourceOptions,
  type FileKnowledgeSourceOptions,
  type StringKnowledgeSourceOptions,
  type KnowledgeChunk,
  type KnowledgeChunkMetadata,
  type KnowledgeDocument,
} from "./knowledge/sources/index.js";
export { ChunkingOptionsError, type ChunkTextOptions } from "./knowledge/chunking/TextChunker.js";
export { EmbedderError, type EmbedOptions, type Embedder } from "./knowledge/embedders/Embedder.js";
export { FunctionEmbedder, type FunctionEmbedderOptions } from "./knowledge/embedders/FunctionEmbedder.js";
export { AISDKEmbedder, type AISDKEmbedderOptions, type EmbeddingProvider } from "./knowledge/embedders/AISDKEmbedder.js";
export type { EmbedderSpec } from "./knowledge/embedders/resolveEmbedder.js";
export {
  SearchStoreError,
  type MetadataValue,
  type SearchDocument,
  type SearchOptions,
  type SearchResult,
  type SearchStore,
  type StoredDocument,
  type UpsertReport,
} from "./knowledge/store/SearchStore.js";
export { SQLiteSearchStore, type SQLiteSearchStoreOptions } from "./knowledge/store/SQLiteSearchStore.js";
export { InMemorySearchStore, type InMemorySearchStoreOptions } from "./knowledge/store/InMemorySearchStore.js";

// Memory
export type { Memory, MemoryItem, MemorySearchOptions, MemoryType } from "./memory/types.js";
export { MemoryOptionsError, MemoryValueError, MemoryWriteError, TaskEvaluationError } from "./memory/errors.js";
export type { MemoryScoring } from "./memory/scoring.js";
export { ShortTermMemory, type ShortTermMemoryOptions } from "./memory/ShortTermMemory.js";
export { LongTermMemory, type LongTermEvaluation, type LongTermMemoryOptions } from "./memory/LongTermMemory.js";
export { EntityMemory, type EntityMemoryOptions } from "./memory/EntityMemory.js";
export type { Entity } from "./memory/Entity.js";
export { ExternalMemory, type ExternalMemoryOptions, type ExternalMemoryProvider } from "./memory/ExternalMemory.js";
export { Mem0Error, Mem0Provider, type Mem0ProviderOptions } from "./memory/Mem0Provider.js";
export type { MemoryConfig } from "./memory/MemorySet.js";

// Storage
export { storageDir } from "./storage/storageDir.js";
export {
  InMemoryTaskOutputStore,
  TaskOutputStoreError,
  type NewStoredTaskOutput,
  type StoredTaskOutput,
  type StoredTaskOutputPatch,
  type TaskOutputStore,
} from "./storage/TaskOutputStore.js";
export { SQLiteTaskOutputStore } from "./storage/SQLiteTaskOutputStore.js";
export { StorageError, type StorageErrorCode } from "./storage/StorageError.js";

// Events and verbose output
export { EventBus, eventBus, type HandlerErrorReporter } from "./events/EventBus.js";
export type { AgentLogStep, BaseEvent, CrewtsEvent, EventHandler, EventPayloads, EventSource, EventType, MemoryEventFields } from "./events/types.js";
export { verboseDefaults } from "./events/VerbosePrinter.js";
export type { VerboseStream } from "./events/terminalText.js";

// YAML projects (CrewAI's @CrewBase)
export { CrewBase, type AgentConfig, type CrewBaseOptions, type TaskConfig, type ToolEntry } from "./project/CrewBase.js";
export { agent, task, crew, beforeKickoff, afterKickoff } from "./project/decorators.js";
export { ProjectConfigError } from "./project/ProjectConfigError.js";
export type { ConfigSource } from "./project/yamlConfig.js";

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
export type { KickoffRequest, KickoffState, KickoffWebhooks, PausedKickoff, PendingInput, RunBackend, RunController, RunEvent, RunOptions, RunStatus } from "./serve/types.js";
export { ServerConfigError } from "./serve/auth.js";
export { startWorker, type KickoffWorker, type KickoffWorkerOptions } from "./worker/KickoffWorker.js";
export { QueueRuns, type QueueRunsOptions } from "./worker/QueueRuns.js";
export { PostgresCheckpointStore, type PostgresCheckpointStoreOptions } from "./stores/postgres/PostgresCheckpointStore.js";
export { PostgresFlowPersistence, type PostgresFlowPersistenceOptions } from "./stores/postgres/PostgresFlowPersistence.js";
export { PostgresTaskOutputStore, type PostgresTaskOutputStoreOptions } from "./stores/postgres/PostgresTaskOutputStore.js";
export { PostgresStoreError } from "./stores/postgres/PostgresDatabase.js";
export { MissingPeerDependencyError } from "./storage/optionalPeer.js";

// Human feedback and pauses: @humanFeedback for flow methods, providers that pause flows and crews.
export { humanFeedback, type HumanFeedbackDecorator } from "./flow/humanFeedback/humanFeedback.js";
export {
  HumanFeedbackError,
  HumanFeedbackPending,
  type HumanFeedbackOptions,
  type HumanFeedbackProvider,
  type HumanFeedbackResult,
  type PendingFeedbackContext,
} from "./flow/humanFeedback/types.js";
export { HumanInputPending } from "./runtime/humanInputPending.js";
export type { CrewPauseInfo } from "./flow/humanFeedback/crewPause.js";
export type { AgentRunState } from "./runtime/agentRunState.js";
