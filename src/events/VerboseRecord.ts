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
}

/** One entry of the verbose account of a run: what the printer shows and the log file stores. */
export interface VerboseRecord {
  /** The event it comes from. */
  type: EventType;
  /** ISO 8601. */
  timestamp: string;
  /** The role of the agent concerned, if any. */
  agent?: string;
  /** The name (else the id) of the task concerned, if any. */
  task?: string;
  /** The headline, e.g. "Tool used". */
  title: string;
  level: VerboseLevel;
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
] as const satisfies readonly EventType[];

/** The flattened, JSON-ready form of a record (see VerboseLogLine). */
export function verboseLogLine(record: VerboseRecord): VerboseLogLine {
  const { fields, ...rest } = record;
  return { ...rest, content: fields.map((f) => `${f.label}: ${f.value}`).join("\n") };
}

/** What the verbose account shows of `event`, or undefined for events it does not show (LLM calls that went well, tool starts). */
export function toVerboseRecord(event: CrewtsEvent): VerboseRecord | undefined {
  // Every text here may come from a model, a tool or the inputs: what a terminal would act on is
  // removed once, so neither the screen nor the log file gets it.
  const make = (title: string, level: VerboseLevel, fields: (VerboseField | false | undefined)[]): VerboseRecord => {
    const shown = fields.filter((f): f is VerboseField => !!f).map((f) => ({ ...f, value: stripControls(f.value) }));
    const record: VerboseRecord = { type: event.type, timestamp: event.timestamp.toISOString(), title, level, fields: shown };
    if (event.agentRole !== undefined) record.agent = stripControls(event.agentRole);
    const task = event.taskName ?? event.taskId;
    if (task !== undefined) record.task = stripControls(task);
    return record;
  };
  const agent = event.agentRole !== undefined && field("Agent", event.agentRole);
  switch (event.type) {
    case "crew_kickoff_started":
      return make("Crew started", "info", [
        field("Crew", event.crewName ?? event.crewId),
        Object.keys(event.inputs).length > 0 && field("Inputs", show(event.inputs)),
      ]);
    case "crew_kickoff_completed": {
      const u = event.tokenUsage;
      return make("Crew completed", "success", [
        field("Crew", event.crewName ?? event.crewId),
        field("Output", event.output),
        field("Tokens", `${u.totalTokens} (prompt ${u.promptTokens}, completion ${u.completionTokens}) in ${u.successfulRequests} requests`),
      ]);
    }
    case "crew_kickoff_failed":
      return make("Crew failed", "error", [field("Crew", event.crewName ?? event.crewId), field("Error", event.error)]);
    case "task_started":
      return make("Task started", "info", [field("Task", event.taskName ?? event.taskId), agent]);
    case "task_completed":
      return make("Task completed", "success", [field("Task", event.taskName ?? event.taskId), agent]);
    case "task_failed":
      return make("Task failed", "error", [field("Task", event.taskName ?? event.taskId), agent, field("Error", event.error)]);
    case "agent_execution_started":
      return make("Agent started", "info", [agent, field("Task", event.taskDescription ?? event.taskPrompt)]);
    case "agent_execution_completed":
      return make("Final answer", "success", [agent, { label: "Answer", value: event.output, whole: true }]);
    case "agent_execution_error":
      return make("Agent failed", "error", [agent, field("Error", event.error)]);
    case "agent_logs_execution": {
      const { step } = event;
      // The parsed thought keeps the protocol's "Thought:" keyword; the label says it already.
      const text = step.thought.trim().replace(/^Thought:\s*/, "");
      const thought = text !== "" && field("Thought", text);
      if (step.type === "finish") return thought ? make("Thought", "info", [agent, thought]) : undefined;
      return make("Tool used", "info", [agent, thought, field("Tool", step.tool ?? ""), field("Input", show(step.toolInput)), field("Output", step.result ?? "")]);
    }
    case "llm_call_failed":
      return make("LLM call failed", "error", [agent, field("Model", event.model), field("Error", event.error)]);
    case "llm_call_retry":
      return make("LLM call retried", "warning", [
        agent,
        field("Model", event.model),
        field("Error", event.error),
        field("Retry", `attempt ${event.attempt + 1} in ${(event.delayMs / 1000).toFixed(1)}s`),
      ]);
    case "tool_usage_finished":
      return event.fromCache ? make("Tool result from cache", "info", [agent, field("Tool", event.toolName), field("Input", show(event.toolArgs))]) : undefined;
    case "tool_usage_error":
      return make("Tool error", "error", [agent, field("Tool", event.toolName), field("Input", show(event.toolArgs)), field("Error", event.error)]);
    case "llm_guardrail_completed":
      return make(event.success ? "Guardrail passed" : "Guardrail failed", event.success ? "success" : "warning", [
        agent,
        event.guardrail !== undefined && field("Guardrail", event.guardrail),
        !event.success && field("Error", event.error ?? ""),
        event.retryCount > 0 && field("Retries", String(event.retryCount)),
      ]);
    default:
      return undefined;
  }
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
