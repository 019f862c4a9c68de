/**
 * Thrown when agents.yaml / tasks.yaml or the crew class built on them is wrong. The message starts
 * with `file:line:` and names the entry and key, e.g.
 * `src/config/tasks.yaml:12: task "write": agent "reporter" is not defined in agents.yaml (known: researcher, writer)`.
 */
export class ProjectConfigError extends Error {
  constructor(
    message: string,
    /** The config file as shown in the message (relative to the working directory when inside it). */
    readonly file?: string,
    /** 1-based line of the problem in `file`. */
    readonly line?: number,
    options?: { cause?: unknown },
  ) {
    super(file === undefined ? message : `${file}${line === undefined ? "" : `:${line}`}: ${message}`, options);
    this.name = "ProjectConfigError";
  }
}
