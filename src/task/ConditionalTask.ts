import { z } from "zod";
import type { Agent } from "../agent/Agent.js";
import { cloneTasksForRuns, Task } from "./Task.js";
import { taskOptionsShape, type TaskOptions } from "./TaskOptions.js";
import { TaskOutput } from "./TaskOutput.js";

/** Options of `new ConditionalTask(...)`: a Task's, plus the condition on the previous task's output. */
export interface ConditionalTaskOptions<S extends z.ZodType = z.ZodType> extends TaskOptions<S> {
  /** Whether to run, given the previous task's output. */
  condition: (previous: TaskOutput) => boolean | Promise<boolean>;
}

const conditionalTaskOptionsSchema = z
  .object({
    ...taskOptionsShape,
    condition: z.custom<(previous: TaskOutput) => boolean>((v) => typeof v === "function", "condition is required: a function (previous: TaskOutput) => boolean"),
  })
  .strict();

/** A task that runs only when its condition holds for the previous task's output; otherwise the crew records an empty output. */
export class ConditionalTask<S extends z.ZodType = z.ZodType> extends Task<S> {
  readonly condition: (previous: TaskOutput) => boolean | Promise<boolean>;

  constructor(options: ConditionalTaskOptions<S>) {
    super(options);
    this.condition = options.condition;
  }

  /** Whether the task should run after `previous`. */
  async shouldExecute(previous: TaskOutput): Promise<boolean> {
    return Boolean(await this.condition(previous));
  }

  /** The output recorded when the task is skipped: empty raw, as CrewAI. */
  getSkippedTaskOutput(): TaskOutput {
    return new TaskOutput({
      description: this.description,
      raw: "",
      agent: this.agent?.role ?? "",
      expectedOutput: this.expectedOutput,
      ...(this.name !== undefined ? { name: this.name } : {}),
    });
  }

  /** A copy as a ConditionalTask with the same condition (see Task.copy). */
  override copy(agentFor?: (agent: Agent) => Agent, contextFor?: (task: Task) => Task): ConditionalTask<S> {
    return super.copy(agentFor, contextFor) as ConditionalTask<S>;
  }

  protected override optionsSchema(): z.ZodObject {
    return conditionalTaskOptionsSchema;
  }
}

cloneTasksForRuns(ConditionalTask.prototype);
