/** Thrown when a knowledge source is misconfigured or one of its files is missing or cannot be parsed. */
export class KnowledgeSourceError extends Error {
  /** The file the error is about, when there is one. */
  readonly filePath: string | undefined;

  constructor(message: string, options: { filePath?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "KnowledgeSourceError";
    this.filePath = options.filePath;
  }
}
