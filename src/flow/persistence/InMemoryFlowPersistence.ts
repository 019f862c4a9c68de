import type { FlowPersistence } from "./FlowPersistence.js";

/** Flow states kept in this process only: for tests and short-lived runs that need resume within a process. */
export class InMemoryFlowPersistence implements FlowPersistence {
  private readonly latest = new Map<string, string>();

  /** Stores a JSON copy, so later changes to the live state do not leak in (and values round-trip as with SQLite). */
  async saveState(flowId: string, _methodName: string, state: Record<string, unknown>): Promise<void> {
    this.latest.set(flowId, JSON.stringify(state));
  }

  /** The latest state saved for `flowId`, as a fresh object. */
  async loadState(flowId: string): Promise<Record<string, unknown> | undefined> {
    const json = this.latest.get(flowId);
    return json === undefined ? undefined : (JSON.parse(json) as Record<string, unknown>);
  }
}
