import type { StreamChunk } from "./StreamChunk.js";

/**
 * A streaming run: an async iterable of its chunks, in the order the provider sent them, and the
 * run's `result`. One consumer iterates it; stopping early (`break`, `return`) cancels the run, and
 * `result` then rejects with KickoffAbortedError. A run that fails ends the iteration with its error.
 */
export class StreamingOutput<T> implements AsyncIterable<StreamChunk> {
  /** The run's result (a CrewOutput, a flow's result, an AgentOutput, or one per input for kickoffForEach). */
  readonly result: Promise<T>;
  private readonly buffer: StreamChunk[] = [];
  private head = 0;
  private waiter: { resolve: (r: IteratorResult<StreamChunk>) => void; reject: (error: unknown) => void } | undefined;
  private ended = false;
  private failure: { error: unknown } | undefined;
  private stopped = false;

  /** `start` runs the work, handing each chunk to the sink it is given; `cancel` stops it. */
  constructor(
    start: (sink: (chunk: StreamChunk) => void) => Promise<T>,
    private readonly cancelRun: (reason: string) => void,
  ) {
    this.result = start((chunk) => this.push(chunk));
    // Also marks `result` handled: a consumer that only iterates still gets the error from the iteration.
    this.result.then(
      () => this.end(undefined),
      (error: unknown) => this.end({ error }),
    );
  }

  /** Stops the run (as a consumer leaving the loop does). */
  cancel(reason = "the stream was cancelled"): void {
    this.stopped = true;
    if (!this.ended) this.cancelRun(reason);
    this.settleWaiter();
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamChunk> {
    return {
      next: () => this.next(),
      return: () => {
        this.cancel("the stream consumer stopped iterating");
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }

  private next(): Promise<IteratorResult<StreamChunk>> {
    if (this.head < this.buffer.length) {
      const value = this.buffer[this.head++]!;
      if (this.head === this.buffer.length) {
        this.buffer.length = 0;
        this.head = 0;
      }
      return Promise.resolve({ done: false, value });
    }
    if (this.stopped) return Promise.resolve({ done: true, value: undefined });
    if (this.ended) return this.failure ? Promise.reject(asError(this.failure.error)) : Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  private push(chunk: StreamChunk): void {
    if (this.stopped || this.ended) return;
    const waiter = this.waiter;
    if (waiter) {
      // The consumer is waiting: hand the chunk over without buffering it.
      this.waiter = undefined;
      waiter.resolve({ done: false, value: chunk });
      return;
    }
    this.buffer.push(chunk);
  }

  private end(failure: { error: unknown } | undefined): void {
    this.ended = true;
    this.failure = failure;
    this.settleWaiter();
  }

  private settleWaiter(): void {
    const waiter = this.waiter;
    if (!waiter) return;
    this.waiter = undefined;
    if (this.failure && !this.stopped) waiter.reject(asError(this.failure.error));
    else waiter.resolve({ done: true, value: undefined });
  }
}

// Runs fail with Errors; anything else thrown is wrapped so the iteration always rejects with one.
const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));
