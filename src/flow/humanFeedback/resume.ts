import type { FlowJournalEntry } from "../../runtime/checkpoint/types.js";
import type { FlowDefinition } from "../FlowDefinition.js";
import { flowDefinition } from "../FlowDefinition.js";
import type { FlowPersistence } from "../persistence/FlowPersistence.js";
import { feedbackHistoryOf } from "./host.js";
import { completeFeedback, feedbackConfigOf } from "./humanFeedback.js";
import { loadPending, looksLikeFeedbackResult, resolvePending, reviveResult, type PendingRecord } from "./pending.js";
import { HumanFeedbackError } from "./types.js";
import { prepareCrewAnswer } from "./crewPause.js";
import { hasHumanInputProvider } from "../../runtime/humanInput.js";

/** The replay of a resumed pause, tagged with what to mark answered once the run ends. */
export type ResumeJournal = FlowJournalEntry[] & { flowId?: string; methodName?: string };

const pausable = new WeakMap<FlowDefinition, boolean>();
const loaded = new WeakMap<object, PendingRecord>();
const ready = new WeakMap<object, ResumeJournal>();

/**
 * Whether a run of the flow class may pause, so it keeps a journal to resume from: it has a
 * `@humanFeedback` method, or a human input provider is set (a crew inside a method may pause).
 */
export function flowPauses(def: FlowDefinition): boolean {
  let pauses = pausable.get(def);
  if (pauses === undefined) pausable.set(def, (pauses = def.methods.some((m) => feedbackConfigOf(m.fn) !== undefined)));
  return pauses || hasHumanInputProvider();
}

/** Loads the pause of `flowId` for `flow` (from `fromPending`): its history is restored, its state returned. */
export async function loadResume(flow: object, backend: FlowPersistence, flowId: string): Promise<{ state: Record<string, unknown> }> {
  const { record, state } = await loadPending(backend, flowId, flowDefinition(flow).name);
  loaded.set(flow, record);
  feedbackHistoryOf(flow).splice(0, Infinity, ...record.history);
  return { state };
}

/** Maps the feedback of a loaded pause and readies the replay for the next kickoff; resolves with the flow id. */
export async function prepareResume(flow: object, feedback: string): Promise<string> {
  const record = loaded.get(flow);
  if (!record) {
    throw new HumanFeedbackError("resume(feedback) continues a flow paused for feedback: get it with `await MyFlow.fromPending(flowId)` first (the id is pending.context.flowId).");
  }
  const def = flowDefinition(flow);
  const crewPause = record.context.crewPause;
  if (crewPause) {
    // The method runs again; its crew takes the answer and continues from its pause.
    loaded.delete(flow);
    prepareCrewAnswer(flow, crewPause, String(feedback ?? ""));
    const journal: ResumeJournal = reviveJournal(def, record.journal);
    journal.flowId = record.context.flowId;
    journal.methodName = record.context.methodName;
    ready.set(flow, journal);
    return record.context.flowId;
  }
  const method = def.byName.get(record.context.methodName);
  const config = feedbackConfigOf(method?.fn);
  if (!method || !config) {
    throw new HumanFeedbackError(`Flow "${def.name}" has no @humanFeedback method "${record.context.methodName}" any more, so its pause cannot be resumed.`);
  }
  const result = await completeFeedback(flow, record.context, String(feedback ?? ""), config);
  loaded.delete(flow);
  const journal: ResumeJournal = reviveJournal(def, record.journal);
  journal.push({ method: method.name, result });
  journal.flowId = record.context.flowId;
  journal.methodName = method.name;
  ready.set(flow, journal);
  return record.context.flowId;
}

/** Earlier feedback results come back from JSON: give them their Date again. */
function reviveJournal(def: FlowDefinition, journal: readonly FlowJournalEntry[]): ResumeJournal {
  return journal.map((e) => (looksLikeFeedbackResult(e.result) && def.byName.has(e.method) ? { ...e, result: reviveResult(e.result) } : e));
}

/** The replay `resume` readied for this kickoff (taken once). */
export function takeResumeJournal(flow: object): ResumeJournal | undefined {
  const journal = ready.get(flow);
  if (journal) ready.delete(flow);
  return journal;
}

/** A resumed run ended: the pause is answered and cannot be resumed again. */
export async function finishResume(journal: ResumeJournal, backend: FlowPersistence): Promise<void> {
  if (journal.flowId !== undefined) await resolvePending(backend, journal.flowId, journal.methodName ?? "");
}
