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
