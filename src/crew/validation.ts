import type { Agent } from "../agent/Agent.js";
import { ConditionalTask, type Task } from "../task/index.js";
import { crewOptionsSchema, type CrewOptions } from "./CrewOptions.js";
import { CrewValidationError } from "./errors.js";
import { Process } from "./Process.js";

/** What the crew checks are run on. */
export interface CrewShape {
  agents: readonly Agent[];
  tasks: readonly Task[];
  process: Process;
  managerLLM?: unknown;
  managerAgent?: Agent;
}

/** Throws a CrewValidationError naming every option that does not fit the Crew options schema. */
export function checkCrewOptions(options: CrewOptions): void {
  const parsed = crewOptionsSchema.safeParse(options);
  if (parsed.success) return;
  const issues = parsed.error.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message));
  throw new CrewValidationError(`Invalid Crew options: ${issues.join("; ")}.`, "invalid_options");
}

/**
 * Throws a CrewValidationError for the first configuration CrewAI rejects, with CrewAI's message and in
 * the order of CrewAI's validators, so a crew that is wrong fails at construction instead of mid-run.
 */
export function validateCrew(crew: CrewShape): void {
  checkManager(crew);
  if (crew.process === Process.sequential) checkAgentsAssigned(crew.tasks);
  checkAsyncEnding(crew.tasks);
  checkConditionalTasks(crew.tasks);
  checkAsyncContext(crew.tasks);
  checkNoFutureContext(crew.tasks);
}

function checkManager({ process, managerLLM, managerAgent, agents }: CrewShape): void {
  if (process !== Process.hierarchical) return;
  if (managerLLM === undefined && managerAgent === undefined) {
    throw new CrewValidationError(
      "Attribute `managerLLM` or `managerAgent` is required when using hierarchical process.",
      "missing_manager_llm_or_manager_agent",
    );
  }
  if (managerAgent === undefined) return;
  if (agents.includes(managerAgent)) {
    throw new CrewValidationError("Manager agent should not be included in agents list.", "manager_agent_in_agents");
  }
  // CrewAI finds this only at kickoff; it is a configuration error, so it is reported here.
  if (managerAgent.tools.length > 0) throw new CrewValidationError("Manager agent should not have tools", "manager_agent_with_tools");
}

function checkAgentsAssigned(tasks: readonly Task[]): void {
  for (const task of tasks) {
    if (task.agent === undefined) {
      throw new CrewValidationError(
        `Sequential process error: Agent is missing in the task with the following description: ${task.description}`,
        "missing_agent_in_task",
      );
    }
  }
}

function checkAsyncEnding(tasks: readonly Task[]): void {
  let trailingAsync = 0;
  for (let i = tasks.length - 1; i >= 0 && tasks[i]!.asyncExecution; i--) trailingAsync++;
  if (trailingAsync > 1) throw new CrewValidationError("The crew must end with at most one asynchronous task.", "async_task_count");
}

function checkConditionalTasks(tasks: readonly Task[]): void {
  // An empty crew has nothing to run, so it gets the same message as a crew of conditional tasks only.
  if (!tasks.some((task) => !(task instanceof ConditionalTask))) {
    throw new CrewValidationError("Crew must include at least one non-conditional task", "only_conditional_tasks");
  }
  if (tasks[0] instanceof ConditionalTask) throw new CrewValidationError("The first task cannot be a ConditionalTask.", "invalid_first_task");
  for (const task of tasks) {
    if (task instanceof ConditionalTask && task.asyncExecution) {
      throw new CrewValidationError(
        `Conditional Task: ${task.description}, cannot be executed asynchronously.`,
        "invalid_async_conditional_task",
      );
    }
  }
}

// An async task starts before the async tasks right before it have finished, so it cannot read their outputs.
function checkAsyncContext(tasks: readonly Task[]): void {
  tasks.forEach((task, i) => {
    if (!task.asyncExecution || !task.context) return;
    for (const contextTask of task.context) {
      if (!contextTask.asyncExecution) continue;
      for (let j = i - 1; j >= 0 && tasks[j]!.asyncExecution; j--) {
        if (tasks[j] === contextTask) {
          throw new CrewValidationError(
            `Task '${task.description}' is asynchronous and cannot include other sequential asynchronous tasks in its context.`,
            "async_task_sequential_async_context",
          );
        }
      }
    }
  });
}

function checkNoFutureContext(tasks: readonly Task[]): void {
  const indexOf = new Map<Task, number>(tasks.map((task, i) => [task, i]));
  tasks.forEach((task, i) => {
    for (const contextTask of task.context ?? []) {
      const at = indexOf.get(contextTask);
      // Context tasks outside the crew are allowed: their last output is used.
      if (at !== undefined && at > i) {
        throw new CrewValidationError(
          `Task '${task.description}' has a context dependency on a future task '${contextTask.description}', which is not allowed.`,
          "context_on_future_task",
        );
      }
    }
  });
}
