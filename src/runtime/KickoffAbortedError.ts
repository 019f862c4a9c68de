/** A kickoff stopped because its signal was aborted (or a streaming consumer stopped iterating). */
export class KickoffAbortedError extends Error {
  constructor(
    what: string,
    /** The signal's abort reason, when one was given. */
    readonly reason?: unknown,
  ) {
    super(`${what} was aborted before it finished${describeReason(reason)}. Nothing more runs; start a new kickoff to try again.`);
    this.name = "KickoffAbortedError";
  }
}

function describeReason(reason: unknown): string {
  if (reason === undefined) return "";
  if (reason instanceof Error) return reason.name === "AbortError" ? "" : `: ${reason.message}`;
  return typeof reason === "string" ? `: ${reason}` : "";
}
