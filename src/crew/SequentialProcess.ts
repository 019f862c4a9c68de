import { rejectedWith } from "../llm/retry.js";
import type { Agent } from "../agent/Agent.js";
import type { CallSource } from "../llm/types.js";
import type { BaseTool } from "../tools/BaseTool.js";
import { ConditionalTask, type Task, type TaskExecuteOptions, type TaskOutput } from "../task/index.js";
import { delegationTools, mergeTools } from "./delegation.js";

/** CrewAI's divider between task outputs in a context. */
export const CONTEXT_DIVIDER = "\n\n----------\n\n";

/** Who executes a task and with which tools: what differs between the sequential and the hierarchical process. */
export interface TaskAssignment {
  agentFor(task: Task): Agent;
  toolsFor(task: Task, agent: Agent): BaseTool[];
}

/** What the crew does with each recorded task output. */
export interface TaskRunHooks {
  /** A task ran to its end (not called for skipped conditional tasks). */
  onTaskCompleted?(task: Task, output: TaskOutput, index: number): void | Promise<void>;
  /** An output was recorded, a skipped task's included: the execution log replay reads. */
  onTaskOutput?(task: Task, output: TaskOutput, index: number): void | Promise<void>;
}

/** Options of executeTasks. */
export interface ExecuteTasksOptions {
  /** Index of the first task to run; earlier tasks contribute their stored `task.output` (replay). */
  startIndex?: number;
  /** Ids added to the events and LLM calls of every task (the crew's id). */
  source?: CallSource;
  /** Outputs of tasks finished before (a resumed checkpoint), by index: recorded again, not run. */
  restored?: ReadonlyMap<number, TaskOutput>;
}

interface PendingTask {
  task: Task;
  index: number;
  promise: Promise<TaskOutput>;
}

/** Joins the raw outputs into a context; empty outputs (skipped tasks) add nothing. */
export function aggregateOutputs(outputs: readonly TaskOutput[]): string {
  if (outputs.length === 0) return "";
  return outputs
    .filter((output) => output.raw !== "")
    .map((output) => output.raw)
    .join(CONTEXT_DIVIDER);
}

/** The context of `task`: its context tasks' outputs, all earlier outputs when it names none, nothing for `[]`. */
export function contextFor(task: Task, outputs: readonly TaskOutput[], outputOf: ReadonlyMap<Task, TaskOutput> | undefined): string {
  if (task.context === undefined) return aggregateOutputs(outputs);
  // A context task outside the crew contributes the output it last produced, as in CrewAI.
  const picked = task.context.map((t) => outputOf?.get(t) ?? t.output).filter((o): o is TaskOutput => o !== undefined);
  return aggregateOutputs(picked);
}

/**
 * Runs the tasks in order (CrewAI's _execute_tasks). Async tasks start at once and run side by side;
 * before the next sync or conditional task, every pending async task is awaited in order and its output
 * recorded. A conditional task whose condition rejects the previous output records its skipped output.
 * If anything fails, the async tasks still running are awaited before the error is rethrown, so no
 * work outlives the kickoff.
 */
export function executeTasks(tasks: readonly Task[], assignment: TaskAssignment, hooks: TaskRunHooks = {}, options: ExecuteTasksOptions = {}): Promise<TaskOutput[]> {
  // Outputs by task only when a task names its context (a kickoff in flight holds no Map otherwise).
  const outputOf = tasks.some((task) => task.context !== undefined) ? new Map<Task, TaskOutput>() : undefined;
  // The usual kickoff: every task runs to its end before the next. Chained with `then`, so a kickoff in
  // flight holds one callback here rather than a suspended call (thousands may be in flight).
  if (isPlainSequence(tasks, options)) return runInOrder({ outputs: [], outputOf, pending: NO_PENDING, hooks }, tasks, assignment, options.source, 0);
  return executeAnyTasks({ outputs: [], outputOf, pending: [], hooks }, tasks, assignment, options);
}

/** No replay start, restored outputs, async or conditional tasks: the tasks just run in order. */
function isPlainSequence(tasks: readonly Task[], options: ExecuteTasksOptions): boolean {
  if ((options.startIndex ?? 0) > 0 || (options.restored !== undefined && options.restored.size > 0)) return false;
  for (const task of tasks) if (task.asyncExecution || task instanceof ConditionalTask) return false;
  return true;
}

/** Runs tasks[index] and those after it, one after the other, recording each output. */
function runInOrder(run: TasksRun, tasks: readonly Task[], assignment: TaskAssignment, source: CallSource | undefined, index: number): Promise<TaskOutput[]> {
  if (index === tasks.length) return Promise.resolve(run.outputs);
  let output: Promise<TaskOutput>;
  const task = tasks[index]!;
  try {
    const agent = assignment.agentFor(task);
    output = task.executeSync(executeOptions(agent, contextFor(task, run.outputs, run.outputOf), assignment.toolsFor(task, agent), source));
  } catch (error) {
    return rejectedWith(error);
  }
  return output.then((done) => {
    const recorded = recordOutput(run, task, done, index, true);
    return recorded ? recorded.then(() => runInOrder(run, tasks, assignment, source, index + 1)) : runInOrder(run, tasks, assignment, source, index + 1);
  });
}

async function executeAnyTasks(run: TasksRun, tasks: readonly Task[], assignment: TaskAssignment, options: ExecuteTasksOptions): Promise<TaskOutput[]> {
  const { hooks } = run;
  const { outputs, outputOf, pending } = run;
  const startIndex = options.startIndex ?? 0;

  try {
    for (let index = 0; index < tasks.length; index++) {
      const task = tasks[index]!;
      if (index < startIndex) {
        if (task.output) {
          outputs.push(task.output);
          outputOf?.set(task, task.output);
        }
        continue;
      }
      const prior = options.restored?.get(index);
      if (prior) {
        // Earlier async tasks finish first, so outputs keep task order.
        if (pending.length > 0) await collectPendingTasks(run);
        task.output = prior;
        outputs.push(prior);
        outputOf?.set(task, prior);
        await hooks.onTaskOutput?.(task, prior, index);
        continue;
      }
      if (task instanceof ConditionalTask) {
        if (pending.length > 0) await collectPendingTasks(run);
        const previous = outputs.at(-1);
        if (previous && !(await task.shouldExecute(previous))) {
          const recorded = recordOutput(run, task, task.getSkippedTaskOutput(), index, false);
          if (recorded) await recorded;
          continue;
        }
      }
      const agent = assignment.agentFor(task);
      const tools = assignment.toolsFor(task, agent);
      if (task.asyncExecution) {
        const promise = task.executeAsync(executeOptions(agent, contextFor(task, outputs, outputOf), tools, options.source));
        // Observed now so a failure is never "unhandled" while earlier work is still awaited.
        promise.catch(() => undefined);
        pending.push({ task, index, promise });
      } else {
        if (pending.length > 0) await collectPendingTasks(run);
        const output = await task.executeSync(executeOptions(agent, contextFor(task, outputs, outputOf), tools, options.source));
        const recorded = recordOutput(run, task, output, index, true);
        if (recorded) await recorded;
      }
    }
    if (pending.length > 0) await collectPendingTasks(run);
  } catch (error) {
    await Promise.allSettled(pending.map((p) => p.promise));
    throw error;
  }
  return outputs;
}

function executeOptions(agent: Agent, context: string, tools: BaseTool[], source: CallSource | undefined): TaskExecuteOptions {
  const options: TaskExecuteOptions = { agent, context, tools };
  if (source) options.source = source;
  return options;
}

/** What executeTasks keeps while it runs: outputs so far, by task too, and the async tasks not yet collected. */
interface TasksRun {
  outputs: TaskOutput[];
  /** Only when a task names its context: the outputs by task (contextFor reads it for those tasks alone). */
  outputOf: Map<Task, TaskOutput> | undefined;
  pending: PendingTask[];
  hooks: TaskRunHooks;
}

// The pending async tasks of a plain sequence, which has none (runInOrder never adds one).
const NO_PENDING: PendingTask[] = Object.freeze([]) as unknown as PendingTask[];

/** Records an output and runs the hooks; a promise only when a hook has something to wait for. */
function recordOutput(run: TasksRun, task: Task, output: TaskOutput, index: number, completed: boolean): Promise<void> | undefined {
  run.outputs.push(output);
  run.outputOf?.set(task, output);
  const { hooks } = run;
  const done = completed ? hooks.onTaskCompleted?.(task, output, index) : undefined;
  if (done) return done.then(() => hooks.onTaskOutput?.(task, output, index));
  return hooks.onTaskOutput?.(task, output, index) ?? undefined;
}

/** Awaits the pending async tasks in order, recording each output. */
async function collectPendingTasks(run: TasksRun): Promise<void> {
  while (run.pending.length > 0) {
    const next = run.pending[0]!;
    const output = await next.promise;
    run.pending.shift();
    const recorded = recordOutput(run, next.task, output, next.index, true);
    if (recorded) await recorded;
  }
}

/** The sequential process: each task's own agent, with the task's tools (else the agent's) and, when it may delegate, the delegation tools. */
export function sequentialAssignment(crewAgents: readonly Agent[]): TaskAssignment {
  return new SequentialAssignment(crewAgents);
}

// A class rather than an object literal with methods: one small object per kickoff, no closures.
class SequentialAssignment implements TaskAssignment {
  constructor(private readonly crewAgents: readonly Agent[]) {}

  agentFor(task: Task): Agent {
    // validateCrew guarantees an agent on every task of a sequential crew.
    if (!task.agent) throw new Error(`Sequential process error: Agent is missing in the task with the following description: ${task.description}`);
    return task.agent;
  }

  toolsFor(task: Task, agent: Agent): BaseTool[] {
    // As CrewAI (`task.tools or agent.tools`): a task's own tools replace the agent's.
    const tools = uniqueTools(task.ownTools.length > 0 ? task.ownTools : agent.tools);
    if (!agent.allowDelegation || this.crewAgents.length < 2) return tools;
    const coworkers = this.crewAgents.filter((a) => a !== agent);
    return coworkers.length > 0 ? mergeTools(tools, delegationTools(coworkers)) : tools;
  }
}

/** `tools` without repeats of the same tool object, in order. */
export function uniqueTools(tools: readonly BaseTool[]): BaseTool[] {
  // Most agents have no tool or one: no Set for them.
  return tools.length < 2 ? tools.slice() : [...new Set(tools)];
}
