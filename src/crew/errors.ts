/** Thrown at construction when a crew is configured wrongly; `code` is CrewAI's error type, the message CrewAI's text. */
export class CrewValidationError extends Error {
  constructor(
    message: string,
    /** A stable identifier of the problem, e.g. "missing_agent_in_task". */
    readonly code: string,
  ) {
    super(message);
    this.name = "CrewValidationError";
  }
}

/** Thrown by `crew.resetMemories` for an unknown kind or a memory this crew does not have. */
export class CrewMemoryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CrewMemoryError";
  }
}

/** Thrown when a crew cannot replay from a task. */
export class CrewReplayError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CrewReplayError";
  }
}

/** What one task left for the crew's output when none left any text. */
export interface EmptyTaskOutput {
  /** The task's name, else its description. */
  task: string;
  /** The role of the agent that answered, "" when no agent ran the task. */
  agent: string;
  /** Why it left nothing: it was skipped, or its agent's final answer was empty. */
  reason: "skipped" | "empty_answer";
}

/**
 * Thrown when a kickoff ends without any task output to make the crew's output from: every task was
 * skipped or answered with empty text. `tasks` says which did what.
 */
export class CrewOutputError extends Error {
  override name = "CrewOutputError";
  /** A stable identifier of the problem. */
  readonly code = "no_valid_task_outputs";

  constructor(readonly tasks: readonly EmptyTaskOutput[]) {
    const each = tasks.map((t) =>
      t.reason === "skipped" ? `task '${t.task}' was skipped (its condition was not met)` : `task '${t.task}' got an empty final answer from agent '${t.agent}'`,
    );
    super(
      `No valid task outputs available to create crew output: ${tasks.length === 0 ? "the crew ran no task" : each.join("; ")}. ` +
        "An empty answer usually means the model replied \"Final Answer:\" with nothing after it: run with verbose: true to see its replies, " +
        "and say in the task's expectedOutput what the answer must contain.",
    );
  }
}
