import type { FlowJournalEntry } from "../../runtime/checkpoint/types.js";
import type { FlowPersistence } from "./FlowPersistence.js";

/** Flow states kept in this process only: for tests and short-lived runs that need resume within a process. */
export class InMemoryFlowPersistence implements FlowPersistence {
  private readonly latest = new Map<string, string>();
  private readonly progress = new Map<string, string[]>();

  /** Stores a JSON copy, so later changes to the live state do not leak in (and values round-trip as with SQLite). */
  async saveState(flowId: string, _methodName: string, state: Record<string, unknown>, finished?: FlowJournalEntry): Promise<void> {
    this.latest.set(flowId, JSON.stringify(state));
    if (finished) {
      let entries = this.progress.get(flowId);
      if (!entries) this.progress.set(flowId, (entries = []));
      entries.push(JSON.stringify(finished));
    }
  }

  /** The methods recorded by the unfinished run of `flowId`. */
  async loadProgress(flowId: string): Promise<FlowJournalEntry[]> {
    return (this.progress.get(flowId) ?? []).map((json) => JSON.parse(json) as FlowJournalEntry);
  }

  /** Forgets the progress of a finished run. */
  async clearProgress(flowId: string): Promise<void> {
    this.progress.delete(flowId);
  }

  /** The latest state saved for `flowId`, as a fresh object. */
  async loadState(flowId: string): Promise<Record<string, unknown> | undefined> {
    const json = this.latest.get(flowId);
    return json === undefined ? undefined : (JSON.parse(json) as Record<string, unknown>);
  }
}
