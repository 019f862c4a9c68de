import { stripControls } from "./terminalText.js";
import type { CrewtsEvent, EventType } from "./types.js";

/** How a record reads: it sets the colour of its title on a terminal. */
export type VerboseLevel = "info" | "success" | "warning" | "error";

/** One labelled value of a record, e.g. { label: "Tool", value: "search" }. */
export interface VerboseField {
  label: string;
  value: string;
  /** Shown whole however long (final answers); other values are shortened on screen. */
  whole?: boolean;
  /** Written to the log file only: the screen shows it in the record's title already (tool calls, crew output). */
  logOnly?: boolean;
}

/** Where a record sits in the tree of a run: crew or flow, task or flow method, agent, then its steps. */
export type VerboseDepth = 0 | 1 | 2 | 3;

/** One entry of the verbose account of a run: what the printer shows and the log file stores. */
export interface VerboseRecord {
  /** The event it comes from. */
  type: EventType;
  /** ISO 8601. */
  timestamp: string;
  /** The role of the agent concerned, if any. */
  agent?: string;
  /** The name of the task concerned (else the start of its description), if any. */
  task?: string;
  /** The headline, e.g. "Task completed: research_task (2.1s)". */
  title: string;
  level: VerboseLevel;
  /** Its place in the tree: 0 crew or flow, 1 task or method, 2 agent, 3 thought or tool call. */
  depth: VerboseDepth;
  /** The body, in order. */
  fields: VerboseField[];
}

/** A record as one line of a log file: the body flattened to `content` ("Label: value" lines, nothing shortened). */
export interface VerboseLogLine {
  type: EventType;
  timestamp: string;
  agent?: string;
  task?: string;
  title: string;
  level: VerboseLevel;
  content: string;
}

/** What the printer knows of a run beyond the event itself: how long the finished step took, the task's label. */
export interface VerboseContext {
  /** Milliseconds since the matching start event (crew, task, flow), for completion records. */
  elapsedMs?: number;
  /** The task's name, else the start of its description (events carry the name only when the task has one). */
  taskLabel?: string;
  /** How the tool call a step reports went, from the tool's own events. */
  tool?: { durationMs?: number; fromCache: boolean; error?: string; attempts: number };
}

/** The events the verbose account is made of; LLM call events only drive the progress line. */
export const VERBOSE_EVENT_TYPES = [
  "crew_kickoff_started",
  "crew_kickoff_completed",
  "crew_kickoff_failed",
  "task_started",
  "task_completed",
  "task_failed",
  "agent_execution_started",
  "agent_execution_completed",
  "agent_execution_error",
  "agent_logs_execution",
  "llm_call_started",
  "llm_call_completed",
  "llm_call_failed",
  "llm_call_retry",
  "tool_usage_finished",
  "tool_usage_error",
  "llm_guardrail_completed",
  "flow_started",
  "flow_finished",
  "method_execution_started",
  "method_execution_finished",
  "method_execution_failed",
] as const satisfies readonly EventType[];

/** The flattened, JSON-ready form of a record (see VerboseLogLine). */
export function verboseLogLine(record: VerboseRecord): VerboseLogLine {
  const { fields, ...rest } = record;
  const { depth: _depth, ...line } = rest;
  return { ...line, content: fields.map((f) => `${f.label}: ${f.value}`).join("\n") };
}

/** What the verbose account shows of `event`, or undefined for events it does not show (LLM calls that went well, tool starts). */
export function toVerboseRecord(event: CrewtsEvent, context: VerboseContext = {}): VerboseRecord | undefined {
  // Every text here may come from a model, a tool or the inputs: what a terminal would act on is
  // removed once, so neither the screen nor the log file gets it.
  const make = (title: string, level: VerboseLevel, depth: VerboseDepth, fields: (VerboseField | false | undefined)[]): VerboseRecord => {
    const shown = fields.filter((f): f is VerboseField => !!f).map((f) => ({ ...f, value: stripControls(f.value) }));
    const record: VerboseRecord = { type: event.type, timestamp: event.timestamp.toISOString(), title: stripControls(title), level, depth, fields: shown };
    if (event.agentRole !== undefined) record.agent = stripControls(event.agentRole);
    const task = context.taskLabel ?? event.taskName ?? event.taskId;
    if (task !== undefined) record.task = stripControls(task);
    return record;
  };
  const took = context.elapsedMs === undefined ? "" : ` (${duration(context.elapsedMs)})`;
  const agent = event.agentRole !== undefined && field("Agent", event.agentRole);
  const taskLabel = context.taskLabel ?? event.taskName ?? event.taskId ?? "";
  switch (event.type) {
    case "crew_kickoff_started":
      return make(`Crew started: ${event.crewName ?? event.crewId}`, "info", 0, [Object.keys(event.inputs).length > 0 && field("Inputs", show(event.inputs))]);
    case "crew_kickoff_completed": {
      const u = event.tokenUsage;
      const requests = `${u.successfulRequests} ${u.successfulRequests === 1 ? "request" : "requests"}`;
      return make(`Crew completed: ${event.crewName ?? event.crewId}${took}`, "success", 0, [
        // The final answer was just shown as the last agent's; the log file keeps it here too.
        { label: "Output", value: event.output, logOnly: true },
        field("Tokens", `${u.totalTokens} (prompt ${u.promptTokens}, completion ${u.completionTokens}) in ${requests}`),
      ]);
    }
    case "crew_kickoff_failed":
      return make(`Crew failed: ${event.crewName ?? event.crewId}${took}`, "error", 0, [field("Error", event.error)]);
    case "task_started":
      return make(`Task started: ${taskLabel}`, "info", 1, [agent]);
    case "task_completed":
      return make(`Task completed: ${taskLabel}${took}`, "success", 1, []);
    case "task_failed":
      return make(`Task failed: ${taskLabel}${took}`, "error", 1, [agent, field("Error", event.error)]);
    case "agent_execution_started":
      return make(`Agent started: ${event.agentRole}`, "info", 2, [field("Task", event.taskDescription ?? event.taskPrompt)]);
    case "agent_execution_completed":
      return make("Final answer", "success", 2, [agent, { label: "Answer", value: event.output, whole: true }]);
    case "agent_execution_error":
      return make(`Agent failed: ${event.agentRole}`, "error", 2, [field("Error", event.error)]);
    case "agent_logs_execution": {
      const { step } = event;
      const text = step.thought.trim().replace(/^Thought:\s*/, "");
      const thought = text === "" ? undefined : `Thought: ${oneLine(text, THOUGHT_CHARS)}`;
      if (step.type === "finish") return thought === undefined ? undefined : make(thought, "info", 3, [{ label: "Thought", value: text, logOnly: true }]);
      // One line per tool call, under the thought that led to it; the tool's events (seen just before) say how it went.
      const tool = context.tool;
      const input = show(step.toolInput);
      const failed = tool?.error !== undefined;
      const outcome = failed ? tool.error! : (step.result ?? "");
      const how = tool === undefined ? "" : tool.fromCache ? " (from cache)" : failed ? (tool.attempts > 1 ? ` (${tool.attempts} attempts)` : "") : tool.durationMs !== undefined ? ` (${duration(tool.durationMs)})` : "";
      const label = failed ? "Tool failed" : "Tool";
      const call = `${step.tool ?? ""} ${oneLine(input, INPUT_CHARS)} → ${oneLine(outcome, OUTPUT_CHARS)}${how}`;
      return make(thought ?? `${label}: ${call}`, failed ? "warning" : "info", 3, [
        { label, value: call, logOnly: thought === undefined },
        text !== "" && { label: "Thought", value: text, logOnly: true },
        { label: "Input", value: input, logOnly: true },
        { label: "Output", value: step.result ?? "", logOnly: true },
      ]);
    }
    case "llm_call_failed":
      return make(`LLM call failed: ${event.model}`, "error", 3, [agent, field("Error", event.error)]);
    case "llm_call_retry":
      return make(`LLM call retried: ${event.model}`, "warning", 3, [
        agent,
        field("Error", event.error),
        field("Retry", `attempt ${event.attempt + 1} in ${(event.delayMs / 1000).toFixed(1)}s`),
      ]);
    case "llm_guardrail_completed":
      return make(event.success ? "Guardrail passed" : "Guardrail failed", event.success ? "success" : "warning", 2, [
        agent,
        event.guardrail !== undefined && field("Guardrail", event.guardrail),
        !event.success && field("Error", event.error ?? ""),
        event.retryCount > 0 && field("Retries", String(event.retryCount)),
      ]);
    case "flow_started":
      return make(`Flow started: ${event.flowName}`, "info", 0, [Object.keys(event.inputs).length > 0 && field("Inputs", show(event.inputs))]);
    case "flow_finished":
      return make(`Flow finished: ${event.flowName} (${duration(event.durationMs)})`, "success", 0, [field("Result", show(event.result))]);
    case "method_execution_started":
      return make(`Method started: ${event.methodName}`, "info", 1, []);
    case "method_execution_finished":
      return event.route !== undefined
        ? make(`Router ${event.methodName} → ${event.route.join(", ") || "(no route)"} (${duration(event.durationMs)})`, "success", 1, [])
        : make(`Method finished: ${event.methodName} (${duration(event.durationMs)})`, "success", 1, [event.result !== undefined && field("Result", show(event.result))]);
    case "method_execution_failed":
      return make(`Method failed: ${event.methodName} (${duration(event.durationMs)})`, "error", 1, [field("Error", event.error)]);
    default:
      return undefined;
  }
}

// How much of a tool call's input and output, or of a thought, fits its one line on screen.
const INPUT_CHARS = 80;
const OUTPUT_CHARS = 160;
const THOUGHT_CHARS = 240;

/** `text` on one line, cut at `max` characters with a note of how much more there was. */
function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max).trimEnd()} … (${flat.length - max} more characters)`;
}

/** "850ms", "2.1s", "1m 05s". */
function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
}

function field(label: string, value: string): VerboseField {
  return { label, value };
}

/** Text as is; anything else as compact JSON (its type when it cannot be serialized, e.g. a cycle or a function). */
function show(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  try {
    // Cleaned before serializing: JSON would keep an escape sequence as "\u001b[2J", harmless but unreadable.
    return JSON.stringify(value, (_key, item: unknown) => (typeof item === "string" ? stripControls(item) : item)) ?? typeof value;
  } catch {
    return Object.prototype.toString.call(value);
  }
}
