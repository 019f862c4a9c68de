import type { Redis } from "ioredis";
import { stepOf } from "../serve/runEvents.js";
import type { RunEvent, RunStatus } from "../serve/types.js";

/** Events (chunks mostly) gathered before they are written, at most. */
const MAX_BATCH = 100;
/** How long an event may wait for others to join its batch. */
const FLUSH_MS = 5;

// One round trip per batch: appends it to the log, publishes it numbered by its place there (so no
// length is read up front, and a retry's events number on after its earlier attempt's), and keeps
// the batch's last step for GET /status. KEYS: log, channel, step; ARGV: step JSON or "", seconds to keep, lines.
const RELAY_SCRIPT = `local len = redis.call("RPUSH", KEYS[1], unpack(ARGV, 3))
local n = #ARGV - 2
redis.call("PUBLISH", KEYS[2], '{"i":' .. (len - n) .. ',"events":[' .. table.concat(ARGV, ",", 3) .. ']}')
redis.call("EXPIRE", KEYS[1], ARGV[2])
if ARGV[1] ~= "" then redis.call("SET", KEYS[3], ARGV[1], "EX", ARGV[2]) end
return len`;

type RelayClient = Redis & { crewtsRelayEvents?: (log: string, channel: string, stepKey: string, step: string, keepSeconds: number, ...lines: string[]) => Promise<number> };

/** Where a kickoff's events go: its log, its channel, the key of its last step, and how long they are kept. */
export interface RelayKeys {
  log: string;
  channel: string;
  step: string;
  keepSeconds: number;
}

/**
 * Relays one kickoff's events from its worker to Redis in batches (up to MAX_BATCH events or
 * FLUSH_MS): each batch is one script call that appends it to the event log (for late subscribers),
 * publishes it on the event channel as `{ i, events }` (`i`: the first one's place in the log) and
 * records the batch's last step. A streaming run sends a chunk per token: one call per batch
 * instead of several per chunk keeps the worker's event loop and Redis free for the runs. Batches
 * are written in order on one connection, so nothing is reordered, and `flush()` before the job
 * completes writes the rest ahead of the job's end.
 */
export class EventRelay {
  private lines: string[] = [];
  private step: RunStatus["last_step"] | undefined;
  private timer: NodeJS.Timeout | undefined;
  private written: Promise<unknown> = Promise.resolve();
  private readonly client: RelayClient;
  /** The last step the run reached (a task or method end, an agent step), for its end status. */
  lastStep: RunStatus["last_step"] | undefined;

  constructor(
    client: Redis,
    private readonly keys: RelayKeys,
  ) {
    this.client = client;
    // ioredis sends a defined command by its SHA (the script body only the first time).
    if (!this.client.crewtsRelayEvents) this.client.defineCommand("crewtsRelayEvents", { numberOfKeys: 3, lua: RELAY_SCRIPT });
  }

  /** Queues an event; it is written within FLUSH_MS, or at once when the batch is full. */
  push(event: RunEvent): void {
    this.lines.push(JSON.stringify(event));
    const step = stepOf(event);
    if (step) this.step = this.lastStep = step;
    if (this.lines.length >= MAX_BATCH) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /** Writes what is queued; resolves once everything pushed so far is in Redis. */
  flush(): Promise<unknown> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.lines.length > 0) {
      const { log, channel, step: stepKey, keepSeconds } = this.keys;
      const lines = this.lines;
      const step = this.step ? JSON.stringify(this.step) : "";
      this.lines = [];
      this.step = undefined;
      // The lines are JSON already: the script puts the message together around them.
      const write = this.client.crewtsRelayEvents!(log, channel, stepKey, step, keepSeconds, ...lines);
      this.written = Promise.all([this.written, write]).catch(() => undefined);
    }
    return this.written;
  }
}
