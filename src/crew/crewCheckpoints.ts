import type { CrewtsEvent } from "../events/types.js";
import type { UsageMetrics } from "../llm/UsageMetrics.js";
import { checkpointStoreFor } from "../runtime/checkpoint/checkpointStores.js";
import { CheckpointRecorder, lineageAfter, type CheckpointLineage } from "../runtime/checkpoint/CheckpointRecorder.js";
import { loadCheckpoint } from "../runtime/checkpoint/checkpointStores.js";
import { CheckpointError } from "../runtime/checkpoint/errors.js";
import { isCrewProgress, type Checkpoint, type CheckpointConfig, type CheckpointTaskRecord } from "../runtime/checkpoint/types.js";
import type { Task, TaskOutput } from "../task/index.js";
import { storedTaskOutput } from "./replay.js";
import type { TaskRunHooks } from "./SequentialProcess.js";
import type { HumanInputPending, PendingHumanInputRecord } from "../runtime/humanInputPending.js";
import { pausedRunsOf } from "../runtime/agentRunState.js";
import { markCrewPause } from "../runtime/pausedCrew.js";

/** Crews write a checkpoint after each task unless told otherwise. */
export const CREW_CHECKPOINT_EVENTS = ["task_completed"];

/** Where a crew resumes: the checkpoint, its inputs and the outputs of its finished tasks by index. */
export interface CrewResume {
  checkpoint: Checkpoint;
  restored: Map<number, TaskOutput>;
  lineage: CheckpointLineage;
}

/** Loads a crew checkpoint and checks it fits `tasks` (same count, same task at each recorded index). */
export async function loadCrewResume(ref: string, config: CheckpointConfig | undefined, tasks: readonly Task[], crewName: string): Promise<CrewResume> {
  const store = config ? checkpointStoreFor(config) : undefined;
  const cp = await loadCheckpoint(ref, { ...(config?.location !== undefined ? { location: config.location } : {}), ...(store && typeof config?.provider === "object" ? { store } : {}) });
  if (cp.kind !== "crew" || !isCrewProgress(cp.progress)) {
    throw new CheckpointError(`Checkpoint "${cp.id}" belongs to a ${cp.kind} ("${cp.name}"), not a crew: resume it with the ${cp.kind}'s kickoff.`);
  }
  const restored = new Map<number, TaskOutput>();
  for (const record of cp.progress.tasks) {
    const task = tasks[record.index];
    if (!task) {
      throw new CheckpointError(`Checkpoint "${cp.id}" records task ${record.index + 1}, but crew "${crewName}" has ${tasks.length} tasks: resume it with the crew that wrote it.`);
    }
    restored.set(record.index, storedTaskOutput(record.output, task.description));
  }
  return { checkpoint: cp, restored, lineage: await lineageAfter(cp, store ?? checkpointStoreFor({ ...(config?.location !== undefined ? { location: config.location } : {}) })) };
}

/** The checkpoints of one crew kickoff: the records of finished tasks and a write after each (or on the configured events). */
export class CrewRunCheckpoints {
  private readonly records = new Map<number, CheckpointTaskRecord>();
  private pendingInput: PendingHumanInputRecord | undefined;
  readonly recorder: CheckpointRecorder;
  private readonly crewName: string;

  constructor(
    config: CheckpointConfig,
    crew: { id: string; name: string },
    inputs: Record<string, unknown>,
    usage: () => UsageMetrics,
    resume: CrewResume | undefined,
    /** Where a run that does not resume writes (a host's lineage); default a new one. */
    lineage?: CheckpointLineage,
  ) {
    this.crewName = crew.name;
    if (resume && isCrewProgress(resume.checkpoint.progress)) for (const r of resume.checkpoint.progress.tasks) this.records.set(r.index, r);
    this.recorder = new CheckpointRecorder(
      config,
      {
        kind: "crew",
        name: crew.name,
        inputs,
        snapshot: () => ({
          progress: { tasks: [...this.records.values()].sort((a, b) => a.index - b.index), ...(this.pendingInput ? { pendingHumanInput: this.pendingInput } : {}) },
          usage: usage(),
        }),
        owns: (event: CrewtsEvent) => (event as { crewId?: string }).crewId === crew.id,
      },
      CREW_CHECKPOINT_EVENTS,
      resume?.lineage ?? lineage,
    );
  }

  /** Writes the checkpoint of a run paused for human input (whatever the configured events) and sets its id on `pending`. */
  async pause(pending: HumanInputPending): Promise<void> {
    const runs = pausedRunsOf(pending);
    this.pendingInput = { context: pending.context, callbackInfo: pending.callbackInfo, ...(Object.keys(runs).length > 0 ? { runs } : {}) };
    pending.checkpointId = await this.recorder.write("human_input_pending", true);
    markCrewPause(pending, this.crewName);
  }

  /** `hooks` with the records kept and, after each finished task, a checkpoint written before the next task starts. */
  wrap(hooks: TaskRunHooks): TaskRunHooks {
    const inline = this.recorder.wants("task_completed");
    return {
      onTaskCompleted: async (task, output, index) => {
        this.records.set(index, { index, taskId: task.id, output: output.toJSON() });
        await hooks.onTaskCompleted?.(task, output, index);
        if (inline) await this.recorder.write("task_completed", false);
      },
      onTaskOutput: async (task, output, index) => {
        if (!this.records.has(index)) this.records.set(index, { index, taskId: task.id, output: output.toJSON(), skipped: true });
        await hooks.onTaskOutput?.(task, output, index);
      },
    };
  }
}
