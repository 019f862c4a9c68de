import type { FlowJournalEntry, FlowProgress } from "./types.js";

// The journal a snapshot was taken from, and how long it was then. A run's journal only grows (entries
// are pushed, never changed or removed), so its first `length` entries stay what they were at the
// snapshot: a checkpoint keeps the array and the length instead of copying every entry at every step.
const SOURCE = Symbol("crewts.journalSource");

interface JournalSource {
  readonly entries: readonly FlowJournalEntry[];
  readonly length: number;
}

type WithSource = FlowProgress & { [SOURCE]?: JournalSource };

/**
 * A flow's progress at one step, in constant time for the journal: `journal` is the first `entries.length`
 * entries of the run's append-only journal, copied only when something reads it whole (the JSON and
 * Postgres stores); the SQLite store reads just the entries it has not written yet (journalSlice).
 */
export function flowProgressSnapshot(
  state: Record<string, unknown>,
  entries: readonly FlowJournalEntry[],
  rest: Pick<FlowProgress, "inFlight" | "waiting">,
): FlowProgress {
  const source: JournalSource = { entries, length: entries.length };
  let copy: readonly FlowJournalEntry[] | undefined;
  const progress = { state } as WithSource;
  Object.defineProperty(progress, "journal", {
    enumerable: true,
    get: () => (copy ??= entries.length === source.length ? entries.slice() : entries.slice(0, source.length)),
  });
  Object.assign(progress, rest);
  Object.defineProperty(progress, SOURCE, { value: source });
  return progress;
}

/** How many journal entries `progress` holds, without copying them. */
export function journalLength(progress: FlowProgress): number {
  return (progress as WithSource)[SOURCE]?.length ?? progress.journal.length;
}

/** The journal entries of `progress` from index `from` on, copying only those. */
export function journalSlice(progress: FlowProgress, from: number): FlowJournalEntry[] {
  const source = (progress as WithSource)[SOURCE];
  return source ? source.entries.slice(from, source.length) : progress.journal.slice(from);
}

/**
 * A copy of the state at one step, so later steps do not change a checkpoint not yet written. Top-level
 * primitives are kept as they are (they cannot change), so the store can tell an unchanged one by
 * identity without serializing it; objects are deep-copied, or copied through JSON
 * when they hold what structuredClone refuses (functions, class instances with private fields).
 */
export function copyFlowState(state: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(state)) {
    const value = state[key];
    // Functions and symbols have no JSON form: left out, as the JSON copy of the whole state would.
    if (typeof value === "function" || typeof value === "symbol") continue;
    copy[key] = typeof value === "object" && value !== null ? copyValue(value) : value;
  }
  return copy;
}

function copyValue(value: object): unknown {
  try {
    return structuredClone(value);
  } catch {
    return JSON.parse(JSON.stringify(value)) as unknown;
  }
}
