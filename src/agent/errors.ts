/** Thrown when an agent's conversation no longer fits its model's context window and summarizing is off or cannot help. */
export class ContextWindowExceededError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ContextWindowExceededError";
  }
}

/** Thrown when an agent runs longer than its maxExecutionTime. */
export class AgentTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AgentTimeoutError";
  }
}

/** Thrown for invalid agent options at construction. */
export class AgentConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AgentConfigError";
  }
}
