import { eventBus } from "../events/index.js";

/** A copy of the state for an event, so observers see it as it was; made only when someone listens. */
export function stateSnapshot(state: Record<string, unknown>): Record<string, unknown> {
  try {
    return structuredClone(state);
  } catch {
    // Functions or other uncloneable values in state: a shallow copy still freezes the top level.
    return { ...state };
  }
}

/** Whether any method-level event has a listener; when not, the engine skips timing and payloads. */
export function methodEventsObserved(): boolean {
  return (
    eventBus.hasListeners("method_execution_started") ||
    eventBus.hasListeners("method_execution_finished") ||
    eventBus.hasListeners("method_execution_failed")
  );
}

/** The message of an error value, for event payloads. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
