import type { Redis } from "ioredis";
import { stepOf } from "../serve/runEvents.js";
import type { RunEvent, RunStatus } from "../serve/types.js";

/** Events (chunks mostly) gathered before they are written, at most. */
const MAX_BATCH = 100;
/** How long an event may wait for others to join its batch. */
const FLUSH_MS = 5;

// Appends a batch to the log and publishes it numbered by its place there (so no length is read up
// front, and a retry's events number on after its earlier attempt's), in one round trip.
const RELAY_SCRIPT = `local len = redis.call("RPUSH", KEYS[1], unpack(ARGV))
redis.call("PUBLISH", KEYS[2], '{"i":' .. (len - #ARGV) .. ',"events":[' .. table.concat(ARGV, ",") .. ']}')
return len`;

type RelayClient = Redis & { crewtsRelayEvents?: (log: string, channel: string, ...lines: string[]) => Promise<number> };

/**
 * Relays one kickoff's events from its worker to Redis in batches: each batch is one script that
 * appends it to the event log (for late subscribers) and publishes it on the event channel as
 * `{ i, events }` (`i`: the first one's place in the log), and at most one progress update (the
 * batch's last step). A streaming run
 * sends a chunk per token; one round of Redis writes per batch instead of three per chunk keeps
 * the worker's event loop and Redis free for the runs. Batches are written in order on one
 * connection, so nothing is reordered, and `flush()` before the job completes writes the rest.
 */
export class EventRelay {
  private lines: string[] = [];
  private step: RunStatus["last_step"] | undefined;
  private timer: NodeJS.Timeout | undefined;
  private written: Promise<unknown> = Promise.resolve();

  private readonly client: RelayClient;

  constructor(
    client: Redis,
    private readonly log: string,
    private readonly channel: string,
    private readonly progress: (step: RunStatus["last_step"]) => Promise<unknown>,
  ) {
    this.client = client;
    // ioredis sends a defined command by its SHA (the script body only the first time).
    if (!this.client.crewtsRelayEvents) this.client.defineCommand("crewtsRelayEvents", { numberOfKeys: 2, lua: RELAY_SCRIPT });
  }

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
      // The lines are JSON already: the script puts the message together around them.
      const writes = [this.client.crewtsRelayEvents!(this.log, this.channel, ...lines), step ? this.progress(step) : undefined];
      this.written = Promise.all([this.written, ...writes]).catch(() => undefined);
    }
    return this.written;
  }
}
