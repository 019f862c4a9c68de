/** Exit codes of the crewts binary. */
export const ExitCode = {
  ok: 0,
  /** A user mistake or a failed run: the message says what to do. */
  userError: 1,
  /** Wrong usage: unknown command, option or argument. */
  usage: 2,
} as const;

/** A mistake the user can fix; printed as one line with the fix, never with a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = ExitCode.userError,
  ) {
    super(message);
    this.name = "CliError";
  }
}

// Errors JavaScript itself throws point at a bug rather than at something the user typed.
const BUILTIN_ERRORS = new Set(["Error", "TypeError", "RangeError", "ReferenceError", "SyntaxError", "EvalError", "URIError", "AggregateError"]);

/** Whether DEBUG asks for crewts's stack traces (DEBUG=crewts, DEBUG=crewts:*, DEBUG=*). */
export function debugEnabled(): boolean {
  return (process.env.DEBUG ?? "").split(/[\s,]+/).some((name) => name === "*" || name === "crewts" || name.startsWith("crewts:"));
}

/**
 * Prints an error for a person and returns the exit code. CliError and crewts's own error classes
 * (whose messages say what to do) are one line; anything else also gets the hint to rerun with
 * DEBUG=crewts, which prints the stack.
 */
export function reportError(error: unknown, write: (text: string) => void = (text) => void process.stderr.write(text)): number {
  const debug = debugEnabled();
  const message = error instanceof Error ? error.message : String(error);
  write(`Error: ${message}\n`);
  if (debug && error instanceof Error && error.stack) write(`${error.stack}\n${error.cause instanceof Error && error.cause.stack ? `Caused by: ${error.cause.stack}\n` : ""}`);
  if (error instanceof CliError) return error.exitCode;
  const expected = error instanceof Error && !BUILTIN_ERRORS.has(error.name);
  if (!expected && !debug) write("This was not expected. Run again with DEBUG=crewts to see the stack trace, and report it if it looks like a bug in crewts.\n");
  return ExitCode.userError;
}
