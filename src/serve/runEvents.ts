import { AsyncLocalStorage } from "node:async_hooks";
import type { CrewtsEvent } from "../events/types.js";
import type { RunEvent, RunStatus } from "./types.js";

/** The part of an event bus the relay needs (the project may bring its own copy of crewts). */
export interface RunEventSource {
  onAny(handler: (event: CrewtsEvent) => void): () => void;
}

type Sink = (event: RunEvent) => void;

const current = new AsyncLocalStorage<Sink>();

/**
 * Runs `work` so the events it causes on `bus`, and only those, reach `sink`, however many runs share
 * the process: an event belongs to the run whose async context emitted it. The listener lives as long
 * as the run.
 */
export async function withRunEvents<T>(bus: RunEventSource, sink: Sink, work: () => Promise<T>): Promise<T> {
  const off = bus.onAny((event) => {
    if (current.getStore() === sink) sink(toRunEvent(event));
  });
  try {
    return await current.run(sink, work);
  } finally {
    off();
  }
}

// Fields too big or too private to stream: whole prompts and the state snapshots of flow methods.
const DROPPED = new Set(["messages", "taskPrompt"]);

/** An event as JSON-safe fields: dates as ISO strings, prompts left out. */
export function toRunEvent(event: CrewtsEvent): RunEvent {
  const out: RunEvent = { type: event.type };
  for (const [key, value] of Object.entries(event)) {
    if (DROPPED.has(key) || value === undefined) continue;
    out[key] = value instanceof Date ? value.toISOString() : value;
  }
  return JSON.parse(JSON.stringify(out, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value))) as RunEvent;
}

const text = (value: unknown): string => (typeof value === "string" ? value : value === undefined || value === null ? "" : JSON.stringify(value));

/** The step an event says the run has reached, for GET /status's last_step; undefined for other events. */
export function stepOf(event: RunEvent): RunStatus["last_step"] | undefined {
  switch (event.type) {
    case "task_completed":
      return { type: "task", name: text(event.taskName ?? event.taskId), output: text(event.output) };
    case "method_execution_finished":
      return { type: "method", name: text(event.methodName) };
    case "agent_logs_execution": {
      const step = event.step as { type?: string; tool?: string; output?: string } | undefined;
      return { type: "agent_step", name: text(event.agentRole), ...(step?.output !== undefined ? { output: step.output } : {}) };
    }
    default:
      return undefined;
  }
}
