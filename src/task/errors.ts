// Shared with the agent's own guardrail, so one class is caught for both.
export { GuardrailError } from "../agent/errors.js";

/** Thrown at construction when Task options are invalid; the message names the field and the fix. */
export class TaskValidationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TaskValidationError";
  }
}

/** Thrown when a task's output file would be written outside where it may go (a path from inputs, or a symbolic link); names the task and the path. */
export class OutputFilePathError extends TaskValidationError {
  constructor(
    message: string,
    /** The task's name (or description). */
    readonly task: string,
    /** The output file path that was refused. */
    readonly path: string,
  ) {
    super(message);
    this.name = "OutputFilePathError";
  }
}

/** Thrown when `{placeholders}` cannot be filled from the inputs; the message names the variable and the inputs given. */
export class InterpolationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InterpolationError";
  }
}
