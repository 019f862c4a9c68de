import type { CheckpointConfig } from "../runtime/checkpoint/types.js";
import type { HostCheckpoints } from "../runtime/checkpoint/hostCheckpoints.js";
import type { TaskOutputStore } from "../storage/TaskOutputStore.js";
import type { KickoffInputs } from "./CrewOptions.js";
import { loadCrewResume, type CrewResume } from "./crewCheckpoints.js";
import { prepareReplay } from "./replay.js";
import type { RunMembers } from "./RunMembers.js";
import type { ExecuteTasksOptions } from "./SequentialProcess.js";

/** How a crew's `run` treats a kickoff: a replay keeps the stored outputs; hooks may be skipped for stored inputs. */
export interface RunMode {
  /** Replay the latest kickoff from this task on. */
  replayTaskId?: string;
  /** Resume from this checkpoint (an id or a JSON file); `resume` is it, once loaded. */
  fromCheckpoint?: string;
  resume?: CrewResume;
  /** Checkpoints the host running the kickoff asked for. */
  host?: HostCheckpoints;
  /** Run the before-kickoff hooks on the inputs (default true). */
  beforeKickoff?: boolean;
}

/** A replay or a resumed kickoff, ready to run: its inputs, where its tasks start, and its mode. */
export interface StoredRun {
  inputs: KickoffInputs | undefined;
  execute: ExecuteTasksOptions;
  mode: RunMode;
}

/** What of the crew a stored run reads. */
export interface StoredRunSource {
  store: TaskOutputStore;
  checkpointConfig: CheckpointConfig | undefined;
  crewName: string;
}

/**
 * Loads what a replay (the latest kickoff's stored outputs) or a resume (a checkpoint) starts from
 * into `members`' tasks. Given inputs win over stored ones; a resume runs the before-kickoff hooks
 * only on inputs given anew.
 */
export async function prepareStoredRun(
  members: RunMembers,
  inputs: KickoffInputs | undefined,
  execute: ExecuteTasksOptions,
  mode: RunMode,
  crew: StoredRunSource,
): Promise<StoredRun> {
  if (mode.replayTaskId !== undefined) {
    const { startIndex, storedInputs } = await prepareReplay(crew.store, mode.replayTaskId, members.tasks);
    return { inputs: inputs ?? storedInputs, execute: { ...execute, startIndex }, mode };
  }
  if (mode.fromCheckpoint === undefined) return { inputs, execute, mode };
  const resume = await loadCrewResume(mode.fromCheckpoint, crew.checkpointConfig ?? mode.host?.config, members.tasks, crew.crewName);
  const given = inputs !== undefined && Object.keys(inputs).length > 0;
  return { inputs: given ? inputs : resume.checkpoint.inputs, execute: { ...execute, restored: resume.restored }, mode: { ...mode, resume, beforeKickoff: given } };
}
