import { eventBus } from "../../events/index.js";
import type { FlowJournalEntry } from "../../runtime/checkpoint/types.js";
import type { FlowPersistence } from "../persistence/FlowPersistence.js";
import { feedbackHistoryOf } from "./host.js";
import { HumanFeedbackError, type HumanFeedbackPending, type HumanFeedbackResult, type PendingFeedbackContext } from "./types.js";

/** What a paused flow leaves in its persistence, next to its state. */
export interface PendingRecord {
  status: "pending" | "resolved";
  context: PendingFeedbackContext;
  callbackInfo: Record<string, unknown>;
  /** The finished methods of the paused run, replayed on resume. */
  journal: FlowJournalEntry[];
  history: HumanFeedbackResult[];
}

// Saved as a pseudo flow id, so every FlowPersistence keeps it without new methods.
const keyOf = (flowId: string): string => `crewts:pending-feedback:${flowId}`;

/** Persists a paused run (state, finished methods, the request and the feedback so far) and emits `flow_paused`. */
export async function pauseFlow(
  backend: FlowPersistence,
  flow: object,
  flowName: string,
  state: Record<string, unknown>,
  journal: readonly FlowJournalEntry[],
  pending: HumanFeedbackPending,
): Promise<HumanFeedbackPending> {
  const context = pending.context;
  const flowId = String(state.id);
  const record: PendingRecord = { status: "pending", context, callbackInfo: pending.callbackInfo, journal: [...journal], history: [...feedbackHistoryOf(flow)] };
  await backend.saveState(flowId, context.methodName, state);
  await backend.saveState(keyOf(flowId), context.methodName, JSON.parse(JSON.stringify(record)) as Record<string, unknown>);
  if (eventBus.hasListeners("flow_paused")) {
    eventBus.emit("flow_paused", { flowName, flowId, methodName: context.methodName, message: context.message, emit: context.emit, callbackInfo: pending.callbackInfo });
  }
  return pending;
}

/** The pending request of `flowId` with its saved state; a HumanFeedbackError when there is none. */
export async function loadPending(backend: FlowPersistence, flowId: string, flowClass: string): Promise<{ record: PendingRecord; state: Record<string, unknown> }> {
  const saved = (await backend.loadState(keyOf(flowId))) as PendingRecord | undefined;
  if (!saved || saved.status !== "pending") {
    throw new HumanFeedbackError(
      `No flow paused for feedback with id "${flowId}" in this persistence${saved ? " (it was resumed already)" : ""}. ` +
        "Pass the id from the HumanFeedbackPending (pending.context.flowId) and the persistence the flow used: fromPending(id, { persistence }).",
    );
  }
  if (saved.context.flowClass !== flowClass) {
    throw new HumanFeedbackError(`Flow id "${flowId}" was paused by flow class "${saved.context.flowClass}", not "${flowClass}": call ${saved.context.flowClass}.fromPending("${flowId}").`);
  }
  const state = await backend.loadState(flowId);
  const record: PendingRecord = {
    ...saved,
    context: { ...saved.context, requestedAt: new Date(saved.context.requestedAt) },
    history: saved.history.map(reviveResult),
    journal: saved.journal,
  };
  return { record, state: { ...state, id: flowId } };
}

/** Marks the request answered, so the same pause cannot be resumed twice. */
export async function resolvePending(backend: FlowPersistence, flowId: string, methodName: string): Promise<void> {
  await backend.saveState(keyOf(flowId), methodName, { status: "resolved" });
}

/** A result read back from JSON gets its Date again. */
export function reviveResult(result: HumanFeedbackResult): HumanFeedbackResult {
  return { ...result, timestamp: new Date(result.timestamp) };
}

/** Whether a journal entry holds a feedback result (plain object from storage). */
export function looksLikeFeedbackResult(value: unknown): value is HumanFeedbackResult {
  return typeof value === "object" && value !== null && "feedback" in value && "methodName" in value && "timestamp" in value;
}
