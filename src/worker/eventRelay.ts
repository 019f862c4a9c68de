import type { Redis } from "ioredis";
import { stepOf } from "../serve/runEvents.js";
import type { RunEvent, RunStatus } from "../serve/types.js";

/** Events (chunks mostly) gathered before they are written, at most. */
const MAX_BATCH = 100;
/** How long an event may wait for others to join its batch. */
const FLUSH_MS = 5;

/**
 * Relays one kickoff's events from its worker to Redis in batches: each batch is one RPUSH to the
 * event log (for late subscribers), one message on the event channel (`{ i, events }`, numbered on
 * from the log's length) and at most one progress update (the batch's last step). A streaming run
 * sends a chunk per token; one round of Redis writes per batch instead of three per chunk keeps
 * the worker's event loop and Redis free for the runs. Batches are written in order on one
 * connection, so nothing is reordered, and `flush()` before the job completes writes the rest.
 */
export class EventRelay {
  private lines: string[] = [];
  private step: RunStatus["last_step"] | undefined;
  private timer: NodeJS.Timeout | undefined;
  private written: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly client: Redis,
    private readonly log: string,
    private readonly channel: string,
    /** The index of the next event (the log's length when the job started). */
    private next: number,
    private readonly progress: (step: RunStatus["last_step"]) => Promise<unknown>,
  ) {}

  /** Queues an event; it is written within FLUSH_MS, or at once when the batch is full. */
  push(event: RunEvent): void {
    this.lines.push(JSON.stringify(event));
    this.step = stepOf(event) ?? this.step;
    if (this.lines.length >= MAX_BATCH) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /** Writes what is queued; resolves once everything pushed so far is in Redis. */
  flush(): Promise<unknown> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.lines.length > 0) {
      const lines = this.lines;
      const step = this.step;
      this.lines = [];
      this.step = undefined;
      // The lines are JSON already: the message is put together around them, not encoded again.
      const message = `{"i":${this.next},"events":[${lines.join(",")}]}`;
      this.next += lines.length;
      const writes = [this.client.rpush(this.log, ...lines), this.client.publish(this.channel, message), step ? this.progress(step) : undefined];
      this.written = Promise.all([this.written, ...writes]).catch(() => undefined);
    }
    return this.written;
  }
}
