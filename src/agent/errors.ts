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

/** Thrown when a guardrail still fails after its retries; the message names the task (or the agent, for agent.kickoff), the guardrail and the last error. */
export class GuardrailError extends Error {
  constructor(
    message: string,
    /** The last error the guardrail reported. */
    readonly lastError: string,
    /** How many times the agent was asked to retry for this guardrail. */
    readonly retries: number,
  ) {
    super(message);
    this.name = "GuardrailError";
  }
}
