import { isFlowProgress, type Checkpoint, type FlowJournalEntry, type FlowProgress } from "./types.js";
import { journalLength, journalSlice } from "./flowSnapshot.js";

// How the SQLite store keeps a flow checkpoint: as a delta, the JSON text
//   {"j":[journal entries appended],"s":{changed key: value, ...},"x":[keys removed]}
// against the previous checkpoint of its lineage, or as a base, the same shape holding the whole
// journal and state. Loading a checkpoint folds the deltas from the nearest base at or before it.

/** One state key as last written: its JSON, and the value itself when it is a primitive (compared by identity). */
export interface KeyVersion {
  json: string;
  primitive?: unknown;
  isPrimitive: boolean;
}

/** A lineage's flow state and journal length as of its newest written checkpoint. */
export interface FlowHead {
  journalLen: number;
  keys: Map<string, KeyVersion>;
}

/** The delta (or, without `previous`, the base) that takes `previous` to `progress`, and the head after it. */
export function encodeFlowDelta(progress: FlowProgress, previous: FlowHead | undefined): { text: string; head: FlowHead } {
  const length = journalLength(progress);
  const entries = journalSlice(progress, previous ? previous.journalLen : 0);
  let text = '{"j":[';
  for (let i = 0; i < entries.length; i++) text += (i > 0 ? "," : "") + (JSON.stringify(entries[i]) ?? "null");
  text += '],"s":{';
  const keys = new Map<string, KeyVersion>();
  const state = progress.state;
  let first = true;
  for (const key of Object.keys(state)) {
    const value = state[key];
    const before = previous?.keys.get(key);
    const isPrimitive = typeof value !== "object" || value === null;
    // A primitive identical to the one last written is unchanged: no need to serialize it again.
    if (before !== undefined && isPrimitive && before.isPrimitive && before.primitive === value) {
      keys.set(key, before);
      continue;
    }
    const json = JSON.stringify(value) ?? "null";
    keys.set(key, isPrimitive ? { json, primitive: value, isPrimitive } : { json, isPrimitive });
    if (before?.json === json) continue;
    text += (first ? "" : ",") + JSON.stringify(key) + ":" + json;
    first = false;
  }
  text += "}";
  if (previous) {
    const removed: string[] = [];
    for (const key of previous.keys.keys()) if (!keys.has(key)) removed.push(key);
    if (removed.length > 0) text += ',"x":' + JSON.stringify(removed);
  }
  return { text: text + "}", head: { journalLen: length, keys } };
}

interface Delta {
  j: FlowJournalEntry[];
  s: Record<string, unknown>;
  x?: string[];
}

/** A flow's state and journal folded from a base and the deltas after it, oldest first. */
export class FlowFold {
  readonly journal: FlowJournalEntry[] = [];
  readonly state: Record<string, unknown> = {};

  /** Applies one row's delta (or base) text; `parse` reports corrupt JSON with the file and the fix. */
  apply(text: string, parse: (text: string) => unknown): void {
    const delta = parse(text) as Delta;
    for (const entry of delta.j) this.journal.push(entry);
    for (const key of Object.keys(delta.s)) this.state[key] = delta.s[key];
    if (delta.x) for (const key of delta.x) delete this.state[key];
  }

  /** The head a writer continues from after this fold. */
  head(): FlowHead {
    const keys = new Map<string, KeyVersion>();
    for (const key of Object.keys(this.state)) {
      const value = this.state[key];
      const isPrimitive = typeof value !== "object" || value === null;
      const json = JSON.stringify(value) ?? "null";
      keys.set(key, isPrimitive ? { json, primitive: value, isPrimitive } : { json, isPrimitive });
    }
    return { journalLen: this.journal.length, keys };
  }

  /** The fold as a base text (the whole journal and state). */
  baseText(): string {
    return JSON.stringify({ j: this.journal, s: this.state });
  }
}

/** What a store writes for a checkpoint: its progress as a delta (flows) or whole, and the lineage head after it. */
export interface CheckpointRowParts {
  /** The flow delta or base text; null for crew and agent checkpoints (their body holds everything). */
  delta: string | null;
  /** The progress left out of the delta: in flight and waiting methods for a flow, everything else whole. */
  body: unknown;
  /** The flow head after this write; undefined for crew and agent checkpoints. */
  flow: FlowHead | undefined;
  /** For a flow: whether this row is a base (it does not continue the lineage's newest row); undefined otherwise. */
  flowBase: boolean | undefined;
}

/**
 * Splits `cp` into the parts a SQL checkpoint store writes. A flow checkpoint continuing `head` (the
 * lineage's newest row as this store wrote or read it) stores only its changes; anything else restates the run.
 */
export function checkpointRowParts(cp: Checkpoint, head: { id: string; flow: FlowHead | undefined } | undefined): CheckpointRowParts {
  const progress = cp.progress;
  if (!isFlowProgress(progress)) return { delta: null, body: progress, flow: undefined, flowBase: undefined };
  const previous = head?.flow;
  const follows = previous !== undefined && head!.id === cp.parentId && journalLength(progress) >= previous.journalLen;
  const encoded = encodeFlowDelta(progress, follows ? previous : undefined);
  return { delta: encoded.text, body: { inFlight: progress.inFlight, waiting: progress.waiting }, flow: encoded.head, flowBase: !follows };
}
