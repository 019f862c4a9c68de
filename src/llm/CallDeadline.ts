/** Default deadline of one call across all its attempts and the waits between them: 5 minutes. */
export const DEFAULT_TOTAL_TIMEOUT_MS = 300_000;

/**
 * totalTimeoutMs when none is given: 5 minutes, or a longer timeoutMs the user set themselves (one
 * whole attempt must fit). The built-in timeoutMs (10 minutes) does not count, or the default would
 * be 10 minutes again.
 */
export function defaultTotalTimeoutMs(explicitTimeoutMs: number | undefined): number {
  return Math.max(DEFAULT_TOTAL_TIMEOUT_MS, explicitTimeoutMs ?? 0);
}

/** The time one attempt may take: `timeoutMs`, or what is left of the total deadline when that is sooner (`byTotal`). */
export interface AttemptBudget {
  ms: number;
  byTotal: boolean;
}

/**
 * The two time limits of one call: each attempt's (`timeoutMs`) and the whole call's, retries and
 * waits included (`totalTimeoutMs`). A silent provider otherwise holds a run for timeoutMs times
 * the attempts (40 minutes with the defaults).
 */
export class CallDeadline {
  /** Epoch ms at which the call must be over. */
  readonly at: number;

  constructor(
    readonly timeoutMs: number,
    readonly totalTimeoutMs: number,
    now: number = Date.now(),
  ) {
    this.at = now + totalTimeoutMs;
  }

  /** The time the next attempt gets (0 when the deadline has passed). */
  nextAttempt(now: number = Date.now()): AttemptBudget {
    const left = Math.max(0, this.at - now);
    return left < this.timeoutMs ? { ms: left, byTotal: true } : { ms: this.timeoutMs, byTotal: false };
  }

  /** What an error says when the total deadline ended the call, and how to raise it. */
  reachedText(): string {
    return `the total deadline of ${this.totalTimeoutMs} ms (totalTimeoutMs), retries included, with each attempt limited to ${this.timeoutMs} ms (timeoutMs)`;
  }

  /** What an error says when a retry would start too late: the call stops with the last failure. */
  noRetryText(): string {
    return `Not retried: the next attempt would start after the total deadline of ${this.totalTimeoutMs} ms (totalTimeoutMs). Raise totalTimeoutMs to allow more retries.`;
  }
}
