import type { Attributes } from "@opentelemetry/api";
import type { CrewtsEvent, EventBus, EventSource, EventType } from "../events/index.js";
import { runOf, type RunTracer, type SpanKey } from "./RunTracer.js";
import { currentScope } from "./traceContext.js";

type Handler<K extends EventType> = (event: CrewtsEvent<K>, t: RunTracer) => void;
type HandlerMap = { [K in EventType]?: Handler<K> };

// Keys of open spans: each names the run and ids the events of that span carry. A key is a path of
// those ids as they come (not one string joined from them): their hashes are cached, a joined
// string is hashed anew at every lookup.
const crewKey = (e: EventSource): SpanKey => ["c", runOf(e)];
const taskKey = (e: EventSource): SpanKey | undefined => (e.taskId === undefined ? undefined : ["t", runOf(e), e.taskId]);
const agentKey = (e: EventSource): SpanKey | undefined => (e.agentId === undefined ? undefined : ["a", runOf(e), e.taskId ?? "", e.agentId]);
const flowKey = (flowId: string): SpanKey => ["f", flowId];
const methodKey = (e: { flowId: string; methodName: string }): SpanKey => ["m", e.flowId, e.methodName];
/** The spans something inside an agent's work can nest under, nearest first. */
const within = (e: EventSource) => [agentKey(e), taskKey(e), e.kickoffId ?? e.crewId ? crewKey(e) : undefined, e.flowId ? flowKey(e.flowId) : undefined];

const llmKey = (callId: string): SpanKey => ["l", callId];
const toolKey = (e: EventSource & { toolName: string }): SpanKey => ["x", runOf(e), e.taskId ?? "", e.agentId ?? "", e.toolName];
const retrievalKey = (e: EventSource): SpanKey => ["r", runOf(e), e.taskId ?? "", e.agentId ?? ""];
const memoryQueryKey = (e: EventSource & { memoryKind: string }): SpanKey => ["q", runOf(e), e.taskId ?? "", e.agentId ?? "", e.memoryKind];
const knowledgeKey = (e: EventSource & { collectionName: string }): SpanKey => ["k", runOf(e), e.taskId ?? "", e.agentId ?? "", e.collectionName];
const rewriteKey = (e: EventSource): SpanKey => ["kq", runOf(e), e.taskId ?? "", e.agentId ?? ""];
const mcpCallKey = (e: EventSource & { serverName: string; toolName: string }): SpanKey => ["p", runOf(e), e.taskId ?? "", e.agentId ?? "", e.serverName, e.toolName];
const mcpConnectKey = (e: EventSource & { serverName: string }): SpanKey => ["pc", runOf(e), e.serverName];
/** MCP spans say which server, by name and transport (never its URL query, headers or environment). */
const mcpAttributes = (e: EventSource & { serverName: string; transport: string }): Attributes => withAgent(e, { "crewts.mcp.server": e.serverName, "crewts.mcp.transport": e.transport });

// Each span carries its own ids only (a task span the task's, an agent span the agent's); the rest
// is on its ancestors. Attributes cost time on every span, and tracing must stay cheap per task.
function crewAttributes(e: EventSource): Attributes {
  const a: Attributes = {};
  if (e.crewId !== undefined) a["crewts.crew.id"] = e.crewId;
  if (e.crewName !== undefined) a["crewts.crew.name"] = e.crewName;
  if (e.kickoffId !== undefined) a["crewts.kickoff.id"] = e.kickoffId;
  return a;
}
function taskAttributes(e: EventSource): Attributes {
  const a: Attributes = {};
  if (e.taskId !== undefined) a["crewts.task.id"] = e.taskId;
  if (e.taskName !== undefined) a["crewts.task.name"] = e.taskName;
  return a;
}
/**
 * Adds where a span outside a crew's tree comes from: the agent, when there is one. (Set on the
 * object, not spread into a literal: `{ ...a, more }` takes a slow path in V8 on Node 20.)
 */
function withAgent(e: EventSource, attributes: Attributes): Attributes {
  if (e.agentRole !== undefined) attributes["crewts.agent.role"] = e.agentRole;
  return attributes;
}

/** Adds `name: content` when content is captured. */
function withContent(t: RunTracer, attributes: Attributes, name: string, value: unknown): Attributes {
  const text = t.content(value);
  if (text !== undefined) attributes[name] = text;
  return attributes;
}

/** "openai/gpt-4o" -> ["openai", "gpt-4o"]; a name without provider keeps it whole. */
function splitModel(model: string): [string, string] {
  const slash = model.indexOf("/");
  return slash < 0 ? ["unknown", model] : [model.slice(0, slash), model.slice(slash + 1)];
}

const handlers: HandlerMap = {
  crew_kickoff_started: (e, t) => t.start(e, crewKey(e), "crew.kickoff", [], withContent(t, crewAttributes(e), "crewts.crew.inputs", e.inputs)),
  crew_kickoff_completed: (e, t) =>
    t.end(crewKey(e), withContent(t, { "gen_ai.usage.input_tokens": e.tokenUsage.promptTokens, "gen_ai.usage.output_tokens": e.tokenUsage.completionTokens }, "crewts.crew.output", e.output)),
  crew_kickoff_failed: (e, t) => t.end(crewKey(e), undefined, e.error),

  task_started: (e, t) => t.start(e, taskKey(e)!, "task", [crewKey(e)], taskAttributes(e)),
  task_completed: (e, t) => t.end(taskKey(e)!, withContent(t, {}, "crewts.task.output", e.output)),
  task_failed: (e, t) => t.end(taskKey(e)!, undefined, e.error),

  agent_execution_started: (e, t) =>
    t.start(e, agentKey(e)!, "agent", [taskKey(e), crewKey(e)], {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": e.agentRole,
      "gen_ai.agent.id": e.agentId,
      "crewts.agent.tools": e.tools,
    }),
  agent_execution_completed: (e, t) => t.end(agentKey(e)!, withContent(t, {}, "crewts.agent.output", e.output)),
  agent_execution_error: (e, t) => t.end(agentKey(e)!, undefined, e.error),

  llm_call_started: (e, t) => {
    const [system, model] = splitModel(e.model);
    const span = t.start(
      e,
      llmKey(e.callId),
      "llm.call",
      within(e),
      withAgent(e, { "gen_ai.system": system, "gen_ai.operation.name": "chat", "gen_ai.request.model": model }),
      "client",
    );
    const prompt = t.content(e.messages);
    if (prompt !== undefined) span.addEvent("gen_ai.content.prompt", { "gen_ai.prompt": prompt });
  },
  llm_call_completed: (e, t) => {
    const key = llmKey(e.callId);
    const completion = t.content(e.toolCalls.length > 0 ? { text: e.response, toolCalls: e.toolCalls } : e.response);
    if (completion !== undefined) t.span(key)?.addEvent("gen_ai.content.completion", { "gen_ai.completion": completion });
    t.end(key, {
      "gen_ai.usage.input_tokens": e.usage.promptTokens,
      "gen_ai.usage.output_tokens": e.usage.completionTokens,
      ...(e.finishReason !== undefined ? { "gen_ai.response.finish_reasons": [e.finishReason] } : {}),
    });
  },
  llm_call_failed: (e, t) => t.end(llmKey(e.callId), e.status !== undefined ? { "http.response.status_code": e.status } : undefined, e.error),
  llm_call_retry: (e, t) => t.span(llmKey(e.callId))?.addEvent("crewts.llm.retry", { attempt: e.attempt, "crewts.retry.delay_ms": e.delayMs, "error.message": e.error }),

  tool_usage_started: (e, t) =>
    t.start(e, toolKey(e), "tool.call", within(e), withContent(t, withAgent(e, { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": e.toolName }), "crewts.tool.arguments", e.toolArgs)),
  tool_usage_finished: (e, t) => t.end(toolKey(e), withContent(t, { "crewts.tool.from_cache": e.fromCache }, "crewts.tool.output", e.output)),
  tool_usage_error: (e, t) => {
    // An unknown tool or bad arguments fail before any start event: a span that starts and fails at once.
    if (!t.span(toolKey(e))) t.start(e, toolKey(e), "tool.call", within(e), withAgent(e, { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": e.toolName }));
    t.end(toolKey(e), undefined, e.error);
  },

  // An MCP call runs inside its crewts tool call, so it nests under that tool.call span.
  mcp_connection_started: (e, t) => t.start(e, mcpConnectKey(e), "mcp.connect", currentScope() ? [] : within(e), mcpAttributes(e)),
  mcp_connection_completed: (e, t) => t.end(mcpConnectKey(e), { "crewts.mcp.reconnect": e.reconnect }),
  mcp_connection_failed: (e, t) => t.end(mcpConnectKey(e), undefined, e.error),
  mcp_tool_execution_started: (e, t) =>
    // Inside a tool run the active scope is its tool.call span; elsewhere, the agent's work.
    t.start(e, mcpCallKey(e), "mcp.call", currentScope() ? [] : within(e), withContent(t, Object.assign(mcpAttributes(e), { "gen_ai.tool.name": e.toolName }), "crewts.tool.arguments", e.toolArgs)),
  mcp_tool_execution_completed: (e, t) => t.end(mcpCallKey(e), withContent(t, {}, "crewts.tool.output", e.output)),
  mcp_tool_execution_failed: (e, t) => t.end(mcpCallKey(e), undefined, e.error),

  flow_started: (e, t) => t.start(e, flowKey(e.flowId), "flow.kickoff", [], withContent(t, { "crewts.flow.name": e.flowName, "crewts.flow.id": e.flowId }, "crewts.flow.inputs", e.inputs)),
  flow_finished: (e, t) => t.end(flowKey(e.flowId), withContent(t, {}, "crewts.flow.result", e.result)),
  method_execution_started: (e, t) =>
    t.start(e, methodKey(e), "flow.method", [flowKey(e.flowId)], { "crewts.flow.name": e.flowName, "crewts.flow.id": e.flowId, "crewts.flow.method": e.methodName }),
  method_execution_finished: (e, t) => t.end(methodKey(e), withContent(t, {}, "crewts.flow.method.result", e.result)),
  method_execution_failed: (e, t) => {
    t.end(methodKey(e), undefined, e.error);
    // A failed method fails the whole flow run, and no flow event follows.
    t.end(flowKey(e.flowId), undefined, e.error);
  },

  // A pause for human feedback ends the run's spans without an error; a resume is a new flow.kickoff.
  method_execution_paused: (e, t) => t.end(methodKey(e), { "crewts.flow.paused": true }),
  flow_paused: (e, t) => t.end(flowKey(e.flowId), { "crewts.flow.paused": true, "crewts.flow.method": e.methodName }),

  memory_retrieval_started: (e, t) => t.start(e, retrievalKey(e), "memory.retrieval", within(e), withAgent(e, { "crewts.memory.kinds": e.memoryKinds })),
  memory_retrieval_completed: (e, t) => t.end(retrievalKey(e), withContent(t, { "crewts.memory.items": e.itemsCount }, "crewts.memory.content", e.memoryContent)),
  memory_query_started: (e, t) =>
    t.start(e, memoryQueryKey(e), "memory.query", [retrievalKey(e), ...within(e)], withContent(t, withAgent(e, { "crewts.memory.kind": e.memoryKind, "crewts.memory.limit": e.limit }), "crewts.memory.query", e.query)),
  memory_query_completed: (e, t) => t.end(memoryQueryKey(e), { "crewts.memory.results": e.resultsCount }),
  memory_query_failed: (e, t) => t.end(memoryQueryKey(e), undefined, e.error),

  knowledge_retrieval_started: (e, t) =>
    t.start(e, knowledgeKey(e), "knowledge.retrieval", within(e), withContent(t, withAgent(e, { "crewts.knowledge.collection": e.collectionName }), "crewts.knowledge.queries", e.queries)),
  knowledge_retrieval_completed: (e, t) => t.end(knowledgeKey(e), withContent(t, { "crewts.knowledge.results": e.retrievedKnowledge.length }, "crewts.knowledge.retrieved", e.retrievedKnowledge)),
  knowledge_query_started: (e, t) => t.start(e, rewriteKey(e), "knowledge.query", within(e), withAgent(e, {})),
  knowledge_query_completed: (e, t) => t.end(rewriteKey(e), withContent(t, {}, "crewts.knowledge.query", e.query)),
  knowledge_query_failed: (e, t) => t.end(rewriteKey(e), undefined, e.error),
};

/** Subscribes `tracer` to the events it turns into spans; returns a function that unsubscribes. */
export function subscribeSpans(bus: EventBus, tracer: RunTracer): () => void {
  const offs = Object.entries(handlers).map(([type, handler]) =>
    bus.on(type as EventType, (event) => (handler as Handler<EventType>)(event as CrewtsEvent<EventType>, tracer)),
  );
  return () => {
    for (const off of offs) off();
  };
}

/** The key of the llm.call span of `callId` (for trace headers of its HTTP request). */
export { llmKey };
