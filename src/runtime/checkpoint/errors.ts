/** A checkpoint could not be found, read or used for what was asked; the message says which and what to do. */
export class CheckpointError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "CheckpointError";
  }
}
