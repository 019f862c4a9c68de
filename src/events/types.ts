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

/** The payload of each event type, keyed by CrewAI's event type strings. */
export interface EventPayloads {
  crew_kickoff_started: EventSource & { crewId: string; inputs: Record<string, unknown> };
  crew_kickoff_completed: EventSource & { crewId: string; output: string; tokenUsage: TokenUsage & { successfulRequests: number } };
  crew_kickoff_failed: EventSource & { crewId: string; error: string };

  task_started: EventSource & { taskId: string; context: string };
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
  };
  llm_call_failed: EventSource & { callId: string; model: string; error: string; status?: number };
  /** A failed attempt that will be retried after `delayMs`. */
  llm_call_retry: EventSource & { callId: string; model: string; attempt: number; delayMs: number; error: string; status?: number };
  llm_stream_chunk: EventSource & { callId: string; model: string; chunk: string };

  tool_usage_started: EventSource & { toolName: string; toolArgs: unknown };
  tool_usage_finished: EventSource & { toolName: string; toolArgs: unknown; output: string; fromCache: boolean; durationMs: number };
  tool_usage_error: EventSource & { toolName: string; toolArgs: unknown; error: string };

  /** Emitted before every guardrail check (function and LLM guardrails); `guardrail` is the rule text or the function's source. */
  llm_guardrail_started: EventSource & { guardrail: string; retryCount: number };
  llm_guardrail_completed: EventSource & { guardrail?: string; success: boolean; result?: unknown; error?: string; retryCount: number };

  flow_started: EventSource & { flowName: string; flowId: string; inputs: Record<string, unknown> };
  flow_finished: EventSource & { flowName: string; flowId: string; result: unknown; durationMs: number };
  method_execution_started: EventSource & { flowName: string; flowId: string; methodName: string; state: unknown };
  method_execution_finished: EventSource & {
    flowName: string;
    flowId: string;
    methodName: string;
    result: unknown;
    state: unknown;
    durationMs: number;
  };
  method_execution_failed: EventSource & { flowName: string; flowId: string; methodName: string; error: string; durationMs: number };
}

/** Every event type string. */
export type EventType = keyof EventPayloads;

/** The full event object delivered to handlers for type `K`. */
export type CrewtsEvent<K extends EventType = EventType> = K extends EventType ? BaseEvent & { type: K } & EventPayloads[K] : never;

/** A handler of events of type `K`; may be async (a rejection is reported, never thrown into the run). */
export type EventHandler<K extends EventType = EventType> = (event: CrewtsEvent<K>) => void | Promise<void>;
