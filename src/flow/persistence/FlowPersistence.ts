import type { FlowJournalEntry } from "../../runtime/checkpoint/types.js";

/** Saves and loads flow states by flow id; every backend passes `test/flow/flowPersistenceConformance.ts`. */
export interface FlowPersistence {
  /**
   * Records `state` as it was after `methodName` finished; the latest save per flow id wins on load.
   * `finished` (the method and its result, when the backend keeps progress) is recorded in the same
   * write, so a run killed later resumes by id without running that method again.
   */
  saveState(flowId: string, methodName: string, state: Record<string, unknown>, finished?: FlowJournalEntry): Promise<void>;
  /** The methods a run of `flowId` that has not finished yet recorded, in order (optional: without it a kickoff by id reruns every method). */
  loadProgress?(flowId: string): Promise<FlowJournalEntry[]>;
  /** Forgets the progress of `flowId` once its run finished, so the next kickoff by id runs the flow again. */
  clearProgress?(flowId: string): Promise<void>;
  /** The latest state saved for `flowId`, or undefined when there is none. */
  loadState(flowId: string): Promise<Record<string, unknown> | undefined>;
  /** Releases connections so the process can exit; optional, and saving again reopens them. */
  close?(): Promise<void> | void;
}
