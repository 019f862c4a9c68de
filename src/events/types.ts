import type { ChatMessage, TokenUsage, ToolCall } from "../llm/types.js";

/** Fields every event carries. */
export interface BaseEvent {
  type: string;
  eventId: string;
  timestamp: Date;
}

/** Ids an event may carry to say where it comes from. */
export interface EventSource {
  crewId?: string;
  crewName?: string;
  taskId?: string;
  taskName?: string;
  agentId?: string;
  agentRole?: string;
  flowId?: string;
  flowName?: string;
  /** One crew kickoff (concurrent kickoffs of one crew share its crew, task and agent ids). */
  kickoffId?: string;
}

/** One step of an agent's loop (CrewAI's formatted_answer): a tool use with what came back, or the final answer. */
export interface AgentLogStep {
  type: "action" | "finish";
  thought: string;
  /** The model's text for this step. */
  text: string;
  tool?: string;
  toolInput?: unknown;
  /** The tool's observation. */
  result?: string;
  /** The final answer. */
  output?: string;
}

/** Fields of every memory event: which memory ("short", "long", "entity", "external") and CrewAI's source type name. */
export interface MemoryEventFields {
  memoryKind: "short" | "long" | "entity" | "external";
  /** CrewAI's name of the memory: "short_term_memory", "long_term_memory", "entity_memory", "external_memory". */
  sourceType: string;
}

/** Fields of every MCP event: the server's name, its transport and where it is. */
export interface MCPEventFields {
  serverName: string;
  transport: "stdio" | "http" | "sse";
  server: string;
}

/** A metadata value carried by memory events (as stored with memory items). */
type MemoryMetadata = Record<string, string | number | boolean | null>;

/** The payload of each event type, keyed by CrewAI's event type strings. */
export interface EventPayloads {
  crew_kickoff_started: EventSource & { crewId: string; inputs: Record<string, unknown> };
  crew_kickoff_completed: EventSource & { crewId: string; output: string; tokenUsage: TokenUsage & { successfulRequests: number } };
  /** `reason: "aborted"` when the kickoff's signal was aborted. */
  crew_kickoff_failed: EventSource & { crewId: string; error: string; reason?: "aborted" };

  /** `taskDescription` is the task as written, so displays can name a task that has no name. */
  task_started: EventSource & { taskId: string; context: string; taskDescription?: string };
  task_completed: EventSource & { taskId: string; output: string };
  task_failed: EventSource & { taskId: string; error: string };

  /** `taskDescription` is the task as written (without expected output and context), for display. */
  agent_execution_started: EventSource & { agentId: string; agentRole: string; taskPrompt: string; taskDescription?: string; tools: string[] };
  agent_execution_completed: EventSource & { agentId: string; agentRole: string; output: string };
  agent_execution_error: EventSource & { agentId: string; agentRole: string; error: string };
  /** After every step of an agent's loop (CrewAI's AgentLogsExecutionEvent): its thought and tool use, or its final answer. */
  agent_logs_execution: EventSource & { agentRole: string; step: AgentLogStep };

  llm_call_started: EventSource & { callId: string; model: string; messages: ChatMessage[]; tools: string[] };
  llm_call_completed: EventSource & {
    callId: string;
    model: string;
    response: string;
    toolCalls: ToolCall[];
    usage: TokenUsage;
    durationMs: number;
    /** Why the model stopped ("stop", "length", "tool-calls"...), when the provider said. */
    finishReason?: string;
  };
  llm_call_failed: EventSource & { callId: string; model: string; error: string; status?: number };
  /** A failed attempt that will be retried after `delayMs`. */
  llm_call_retry: EventSource & { callId: string; model: string; attempt: number; delayMs: number; error: string; status?: number };
  llm_stream_chunk: EventSource & { callId: string; model: string; chunk: string };
  /** A failed embeddings request that will be retried after `delayMs`; `embedder` is the embedder's id ("openai/text-embedding-3-small"). */
  embedder_call_retry: EventSource & { embedder: string; attempt: number; delayMs: number; error: string; status?: number };

  tool_usage_started: EventSource & { toolName: string; toolArgs: unknown };
  tool_usage_finished: EventSource & { toolName: string; toolArgs: unknown; output: string; fromCache: boolean; durationMs: number };
  tool_usage_error: EventSource & { toolName: string; toolArgs: unknown; error: string };

  /** Emitted before every guardrail check (function and LLM guardrails); `guardrail` is the rule text or the function's source. */
  llm_guardrail_started: EventSource & { guardrail: string; retryCount: number };
  llm_guardrail_completed: EventSource & { guardrail?: string; success: boolean; result?: unknown; error?: string; retryCount: number };

  /** A value was queued for saving; `value` is a preview (at most 500 characters). */
  memory_save_started: EventSource & MemoryEventFields & { value: string; metadata: MemoryMetadata };
  /** The deferred write of a saved value finished; `saveTimeMs` runs from save() to the write's end. */
  memory_save_completed: EventSource & MemoryEventFields & { value: string; metadata: MemoryMetadata; saveTimeMs: number };
  /** A value could not be saved (write failed, or the task evaluation it needed failed); flush() reports it too. */
  memory_save_failed: EventSource & MemoryEventFields & { value: string; metadata: MemoryMetadata; error: string };
  memory_query_started: EventSource & MemoryEventFields & { query: string; limit: number; scoreThreshold?: number };
  memory_query_completed: EventSource & MemoryEventFields & { query: string; limit: number; scoreThreshold?: number; resultsCount: number; queryTimeMs: number };
  memory_query_failed: EventSource & MemoryEventFields & { query: string; limit: number; scoreThreshold?: number; error: string };
  /** Before the memory context of a task is built; `memoryKinds` are the memories searched. */
  memory_retrieval_started: EventSource & { query: string; memoryKinds: ("short" | "long" | "entity" | "external")[] };
  /** The memory context was built; `memoryContent` is the text given to the agent ("" when nothing was found). */
  memory_retrieval_completed: EventSource & { query: string; memoryContent: string; itemsCount: number; retrievalTimeMs: number };

  flow_started: EventSource & { flowName: string; flowId: string; inputs: Record<string, unknown> };
  flow_finished: EventSource & { flowName: string; flowId: string; result: unknown; durationMs: number };
  method_execution_started: EventSource & { flowName: string; flowId: string; methodName: string; state: unknown };
  /** `route`: for a router, the labels its result emitted (empty when none). */
  method_execution_finished: EventSource & {
    flowName: string;
    flowId: string;
    methodName: string;
    result: unknown;
    state: unknown;
    durationMs: number;
    route?: string[];
  };
  /** A flow kickoff was aborted by its signal (a method's own failure is method_execution_failed). */
  flow_failed: EventSource & { flowName: string; flowId: string; error: string; reason?: "aborted" };
  method_execution_failed: EventSource & { flowName: string; flowId: string; methodName: string; error: string; durationMs: number };
  /** A flow method's feedback request paused the run (a provider threw HumanFeedbackPending). */
  method_execution_paused: EventSource & { flowName: string; flowId: string; methodName: string; state: unknown };
  /** A flow paused for human feedback; its state is persisted and `fromPending(flowId)` resumes it. */
  flow_paused: EventSource & { flowName: string; flowId: string; methodName: string; message: string; emit: string[] | null; callbackInfo: Record<string, unknown> };
  /** `@humanFeedback` asks a human about a method's output. */
  human_feedback_requested: EventSource & { flowName: string; flowId: string; methodName: string; message: string; output: unknown; emit: string[] | null };
  /** The human answered; `outcome` is the `emit` outcome it was mapped to (null without emit). */
  human_feedback_received: EventSource & { flowName: string; flowId: string; methodName: string; feedback: string; outcome: string | null };

  /** A checkpoint was written (see CheckpointConfig.onEvents). */
  checkpoint_written: EventSource & { checkpointId: string; lineage: string; branch: string; kind: string; name: string; event: string };
  /** An automatic checkpoint write failed; the run goes on. */
  checkpoint_failed: EventSource & { kind: string; name: string; event: string; lineage: string; error: string };
  /** An MCP server connection is opening; `server` is its command or its URL without the query. */
  mcp_connection_started: EventSource & MCPEventFields;
  /** `pid` is the process id of a stdio server (to watch it, or to be sure it ended). */
  mcp_connection_completed: EventSource & MCPEventFields & { durationMs: number; reconnect: boolean; pid?: number };
  /** A server could not be reached; `error` says why (secrets removed). */
  mcp_connection_failed: EventSource & MCPEventFields & { error: string; durationMs: number };
  /** `toolName` is the tool's name on the server. */
  mcp_tool_execution_started: EventSource & MCPEventFields & { toolName: string; toolArgs: unknown };
  mcp_tool_execution_completed: EventSource & MCPEventFields & { toolName: string; toolArgs: unknown; output: string; durationMs: number };
  /** The call failed, timed out, lost its connection, or the server answered with an error result. */
  mcp_tool_execution_failed: EventSource & MCPEventFields & { toolName: string; toolArgs: unknown; error: string; durationMs: number };

  /** Sources of a knowledge base read and indexed (once per Knowledge; unchanged chunks are not rewritten). */
  knowledge_ingestion_completed: EventSource & { collectionName: string; sources: number; chunks: number; removedChunks: number; durationMs: number };
  /** Before an agent searches knowledge for a task. */
  knowledge_retrieval_started: EventSource & { collectionName: string; queries: string[] };
  knowledge_retrieval_completed: EventSource & { collectionName: string; queries: string[]; retrievedKnowledge: string[] };
  /** The agent's LLM rewriting the task into a search query (knowledgeConfig.rewriteQuery). */
  knowledge_query_started: EventSource & { taskPrompt: string };
  knowledge_query_completed: EventSource & { query: string };
  /** The rewrite failed; the task text is searched instead. */
  knowledge_query_failed: EventSource & { error: string };
}

/** Every event type string. */
export type EventType = keyof EventPayloads;

/** The full event object delivered to handlers for type `K`. */
export type CrewtsEvent<K extends EventType = EventType> = K extends EventType ? BaseEvent & { type: K } & EventPayloads[K] : never;

/** A handler of events of type `K`; may be async (a rejection is reported, never thrown into the run). */
export type EventHandler<K extends EventType = EventType> = (event: CrewtsEvent<K>) => void | Promise<void>;
