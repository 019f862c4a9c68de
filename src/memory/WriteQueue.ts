import { toError } from "./errors.js";

/** What the queue reports about each written (or failed) entry. */
export interface WriteQueueHooks<T> {
  onWritten?: (entry: T) => void;
  onFailed?: (entry: T, error: Error) => void;
}

/**
 * Deferred writes: `enqueue` returns at once; entries queued in the same tick (and while a write runs)
 * are written together by one `write` call of at most `batchSize` entries. Failures are kept until
 * `takeFailures`, so none is lost or thrown into nowhere.
 */
export class WriteQueue<T> {
  private pending: T[] = [];
  private running: Promise<void> | undefined;
  private failures: Error[] = [];

  constructor(
    private readonly write: (batch: T[]) => Promise<void>,
    private readonly hooks: WriteQueueHooks<T> = {},
    private readonly batchSize = Number.POSITIVE_INFINITY,
  ) {}

  /** Queues an entry; the write starts on the next microtask so entries queued together share it. */
  enqueue(entry: T): void {
    this.pending.push(entry);
    this.running ??= this.drain();
  }

  /** Resolves once every queued entry is written or failed; never rejects. */
  async settle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** The failures since the last call, oldest first. */
  takeFailures(): Error[] {
    return this.failures.splice(0);
  }

  private async drain(): Promise<void> {
    // Let the entries queued in this tick join the first batch.
    await Promise.resolve();
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, this.batchSize);
        try {
          await this.write(batch);
          for (const entry of batch) this.hooks.onWritten?.(entry);
        } catch (error) {
          const failure = toError(error);
          for (const entry of batch) {
            this.failures.push(failure);
            this.hooks.onFailed?.(entry, failure);
          }
        }
      }
    } finally {
      // Cleared in the same step that found nothing pending, so an entry queued after it starts a new drain.
      this.running = undefined;
    }
  }
}
