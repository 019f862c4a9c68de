import { sleep } from "../llm/retry.js";

/**
 * Allows at most `maxRpm` acquisitions in any sliding 60-second window. Waiting uses one timer that
 * exists only while someone waits, so a finished run leaves nothing that keeps the process alive.
 */
export class RpmLimiter {
  private readonly stamps: number[] = [];
  private tail: Promise<void> = Promise.resolve();

  constructor(
    readonly maxRpm: number,
    private readonly windowMs = 60_000,
  ) {
    if (!Number.isInteger(maxRpm) || maxRpm < 1) {
      throw new RangeError(`maxRpm must be a positive integer, got ${String(maxRpm)}.`);
    }
  }

  /** Resolves when a request may be made; callers queue in order. */
  acquire(signal?: AbortSignal): Promise<void> {
    const turn = this.tail.then(() => this.waitForSlot(signal));
    // A rejected (aborted) turn must not block the ones queued behind it.
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  /** Requests made within the current window. */
  get inWindow(): number {
    this.prune(Date.now());
    return this.stamps.length;
  }

  private async waitForSlot(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const now = Date.now();
      this.prune(now);
      if (this.stamps.length < this.maxRpm) {
        this.stamps.push(now);
        return;
      }
      await sleep(Math.max(0, this.stamps[0]! + this.windowMs - now), signal);
    }
  }

  private prune(now: number): void {
    while (this.stamps.length > 0 && this.stamps[0]! <= now - this.windowMs) this.stamps.shift();
  }
}
