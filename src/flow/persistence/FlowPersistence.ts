/** Saves and loads flow states by flow id; every backend passes `test/flow/flowPersistenceConformance.ts`. */
export interface FlowPersistence {
  /** Records `state` as it was after `methodName` finished; the latest save per flow id wins on load. */
  saveState(flowId: string, methodName: string, state: Record<string, unknown>): Promise<void>;
  /** The latest state saved for `flowId`, or undefined when there is none. */
  loadState(flowId: string): Promise<Record<string, unknown> | undefined>;
  /** Releases connections so the process can exit; optional, and saving again reopens them. */
  close?(): Promise<void> | void;
}
