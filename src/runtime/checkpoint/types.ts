import type { AgentRunState } from "../agentRunState.js";
import type { PendingHumanInputRecord } from "../humanInputPending.js";
import type { UsageMetrics } from "../../llm/UsageMetrics.js";

/** What kind of run a checkpoint belongs to. */
export type CheckpointKind = "crew" | "flow" | "agent";

/** The header of a checkpoint: what `list` returns. */
export interface CheckpointInfo {
  readonly id: string;
  /** Every checkpoint of one run (and of its resumptions) shares a lineage; a fork starts a new one. */
  readonly lineage: string;
  /** A name for the lineage ("main" unless a fork named it). */
  readonly branch: string;
  /** The checkpoint this one follows (the previous one of the run, or the one a fork started from). */
  readonly parentId?: string;
  /** ISO time of the write. */
  readonly createdAt: string;
  /** The event that caused the write ("task_completed", "method_execution_finished", "manual", ...). */
  readonly event: string;
  readonly kind: CheckpointKind;
  /** The crew's, flow's or agent's name (the flow class name, the crew name, the agent role). */
  readonly name: string;
}

/** A finished task of a crew run, as restored on resume. */
export interface CheckpointTaskRecord {
  readonly index: number;
  readonly taskId: string;
  /** TaskOutput.toJSON() of the output. */
  readonly output: Record<string, unknown>;
  /** A conditional task whose condition rejected the previous output. */
  readonly skipped?: boolean;
}

/** A crew run's progress: the tasks whose outputs are recorded, in task order. */
export interface CrewProgress {
  readonly tasks: readonly CheckpointTaskRecord[];
  /** The question a crew paused on (HumanInputPending); `crew.resume(id, answer)` answers it. */
  readonly pendingHumanInput?: PendingHumanInputRecord;
}

/** One finished method of a flow run, in completion order. */
export interface FlowJournalEntry {
  readonly method: string;
  readonly result: unknown;
}

/** A flow run's progress. */
export interface FlowProgress {
  /** The flow state after the last finished method. */
  readonly state: Record<string, unknown>;
  /** Every finished method with its result, in completion order: resume replays it, running no body twice. */
  readonly journal: readonly FlowJournalEntry[];
  /** Methods started and not finished when the checkpoint was written (they run again on resume). */
  readonly inFlight: readonly string[];
  /** `and` conditions met in part: the method waiting and the triggers it has seen. */
  readonly waiting: readonly { readonly method: string; readonly seen: readonly string[] }[];
}

/** A standalone agent run's progress: where its loop stands, and the answer once finished. */
export interface AgentProgress {
  /** `{ raw }`: the agent's answer, once it has one. */
  readonly output?: Record<string, unknown>;
  /** The loop after its latest step: resumed from there. */
  readonly run?: AgentRunState;
  /** Tokens spent before the loop started (knowledge, reasoning). */
  readonly setupUsage?: UsageMetrics;
  /** The question the agent paused on (HumanInputPending); `agent.resume(id, answer)` answers it. */
  readonly pendingHumanInput?: PendingHumanInputRecord;
}

/** Everything needed to resume a run from one point. */
export interface Checkpoint extends CheckpointInfo {
  /** The inputs the run was kicked off with. */
  readonly inputs: Record<string, unknown>;
  readonly progress: CrewProgress | FlowProgress | AgentProgress;
  /** Tokens used until the checkpoint. */
  readonly usage: UsageMetrics;
}

/** Which checkpoints `list` returns (every field optional). */
export interface CheckpointFilter {
  lineage?: string;
  branch?: string;
  kind?: CheckpointKind;
  name?: string;
}

/** Where checkpoints live: LangGraph's checkpointer shape, four methods every backend implements. */
export interface CheckpointStore {
  /** Writes `cp` and resolves with its id once it is durable. */
  save(cp: Checkpoint): Promise<string>;
  /** The checkpoint `id`, or undefined when the store has none by that id. */
  load(id: string): Promise<Checkpoint | undefined>;
  /** Headers of the matching checkpoints, oldest first. */
  list(filter?: CheckpointFilter): Promise<CheckpointInfo[]>;
  /** Deletes all but the newest `keep` checkpoints of `lineage`. */
  prune(lineage: string, keep: number): Promise<void>;
  /** Releases open handles (optional); the store stays usable. */
  close?(): Promise<void>;
}

/** `checkpoint` option of crews, flows and agents. */
export interface CheckpointConfig {
  /** Default "./.checkpoints": a directory (JSON: a file per checkpoint; SQLite: checkpoints.db in it) or a path ending in .db. */
  location?: string;
  /** Events that write a checkpoint; default ["task_completed"] for crews, ["method_execution_finished"] for flows; "*" for all. */
  onEvents?: string[];
  /** Default "sqlite". */
  provider?: "json" | "sqlite" | CheckpointStore;
  /** Keep at most this many checkpoints per lineage (the oldest are pruned after each write). */
  maxCheckpoints?: number;
}

/** Whether `progress` is a flow's. */
export function isFlowProgress(progress: Checkpoint["progress"]): progress is FlowProgress {
  return "journal" in progress && "state" in progress;
}

/** Whether `progress` is a crew's. */
export function isCrewProgress(progress: Checkpoint["progress"]): progress is CrewProgress {
  return "tasks" in progress;
}
