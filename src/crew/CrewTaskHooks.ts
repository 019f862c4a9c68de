import type { Agent } from "../agent/Agent.js";
import type { KickoffMemory } from "../memory/MemorySet.js";
import type { Task, TaskOutput } from "../task/index.js";
import type { CrewOptions, KickoffInputs } from "./CrewOptions.js";
import { rememberTask } from "./crewMemory.js";
import type { ReplayRecorder } from "./replay.js";
import type { RunMembers } from "./RunMembers.js";
import type { CrewRunCheckpoints } from "./crewCheckpoints.js";
import { hierarchicalAssignment } from "./HierarchicalProcess.js";
import type { KickoffScope } from "./KickoffScope.js";
import { executeTasks, sequentialAssignment, type ExecuteTasksOptions, type TaskRunHooks } from "./SequentialProcess.js";
import type { TaskLogFile } from "./TaskLogFile.js";

/** What the crew's task hooks of one kickoff work with. */
export interface CrewTaskRun {
  crewId: string;
  kickoffId: string;
  inputs: KickoffInputs;
  /** A replay: the outputs recorded are marked as replayed. */
  replaying: boolean;
  recorder: ReplayRecorder;
  memory: KickoffMemory | undefined;
  members: RunMembers;
  /** The run's copy of a hierarchical crew's manager. */
  manager: Agent | undefined;
  logFile: TaskLogFile | undefined;
  taskCallback: CrewOptions["taskCallback"];
}

/**
 * What a crew does with each task of a kickoff: remembers a finished task, logs it, calls the crew's
 * taskCallback, and keeps every recorded output for replay. Methods rather than closures: one small
 * object per kickoff (thousands of kickoffs may be in flight).
 */
export class CrewTaskHooks implements TaskRunHooks {
  constructor(private readonly run: CrewTaskRun) {}

  onTaskCompleted(task: Task, output: TaskOutput): Promise<void> | undefined {
    const { memory, members, manager, logFile, taskCallback } = this.run;
    if (memory) rememberTask(memory, task, output, { crewId: this.run.crewId, kickoffId: this.run.kickoffId, agents: [...members.participants(), ...(manager ? [manager] : [])] });
    // Nothing to log or call back: nothing to wait for either.
    if (!logFile && (!taskCallback || taskCallback === task.options.callback)) return undefined;
    return this.logAndCallBack(task, output);
  }

  private async logAndCallBack(task: Task, output: TaskOutput): Promise<void> {
    await this.run.logFile?.append({
      ...(task.name !== undefined ? { taskName: task.name } : {}),
      task: task.description,
      agent: task.agent?.role ?? output.agent,
      status: "completed",
      output: output.raw,
    });
    // As CrewAI: the crew's callback runs after every task, after the task's own callback.
    const callback = this.run.taskCallback;
    if (callback && callback !== task.options.callback) await callback(output);
  }

  /** Every recorded output, skipped ones too, is kept for replay (CrewAI's _store_execution_log). */
  onTaskOutput(task: Task, output: TaskOutput, index: number): Promise<void> | undefined {
    const { recorder, inputs, replaying } = this.run;
    return recorder.add(() => ({ taskId: task.id, expectedOutput: task.expectedOutput, output: output.toJSON(), taskIndex: index, inputs, wasReplayed: replaying }));
  }
}

/** Runs a kickoff's tasks in order, or under the run's manager when it has one, with the crew's task hooks (checkpointed when `checkpoints` is given). */
export function runCrewTasks(run: CrewTaskRun, scope: KickoffScope, execute: ExecuteTasksOptions, checkpoints: CrewRunCheckpoints | undefined): Promise<TaskOutput[]> {
  const plain = new CrewTaskHooks(run);
  const hooks = checkpoints ? checkpoints.wrap(plain) : plain;
  const runOptions: ExecuteTasksOptions = Object.assign({}, execute);
  runOptions.source = { crewId: run.crewId, kickoffId: run.kickoffId };
  const { members, manager } = run;
  if (manager) {
    scope.enlist(manager);
    return executeTasks(members.tasks, hierarchicalAssignment(manager, members.agents), hooks, runOptions);
  }
  return executeTasks(members.tasks, sequentialAssignment(members.agents), hooks, runOptions);
}
