import { randomUUID } from "node:crypto";
import type { Queue, QueueEvents } from "bullmq";
import type { Redis } from "ioredis";
import { injectTraceContext } from "../tracing/propagation.js";
import { FINAL_STATES, type KickoffRequest, type PausedKickoff, type RunBackend, type RunEvent, type RunStatus } from "../serve/types.js";
import { connectRedis, DEFAULT_QUEUE, KEEP_SECONDS, kickoffIdOfJob, loadBullMQ, queueKeys, redisOptions, resumeJobId, subscriberOf } from "./redisQueue.js";

/** Options of QueueRuns.connect. */
export interface QueueRunsOptions {
  /** The BullMQ queue name; default "crewts". */
  queue?: string;
  /** Tries per kickoff (a crashed or failed run is tried again); default 3. */
  attempts?: number;
  /** The first retry's delay; later ones double. Default 1 000 ms. */
  backoffMs?: number;
}

/** What a job carries: the kickoff request; a resume job also the pause it answers. */
export type KickoffJobData = KickoffRequest & { resume?: { kickoffId: string; paused: PausedKickoff; feedback: string } };

/** What a worker leaves in Redis when its kickoff pauses. */
export interface PauseRecord {
  paused: PausedKickoff;
  webhooks?: KickoffRequest["webhooks"];
}

// Takes a pause (once: a second resume finds nothing) and points the kickoff at its resume job, in one step.
const TAKE_PAUSE = `local p = redis.call("GET", KEYS[1])
if not p then return false end
redis.call("DEL", KEYS[1])
redis.call("SET", KEYS[2], ARGV[1], "EX", ARGV[2])
return p`;

/** How long after BullMQ reports a job finished its subscribers are checked for a missed end. */
const RECHECK_MS = 250;

/** Job states no worker has taken yet: a cancel removes such a job. */
const WAITING_STATES = new Set<string>(["waiting", "delayed", "prioritized", "waiting-children"]);

/** A message on a kickoff's event channel: a batch of events numbered from `i` (or one, from older workers), or the end. */
export type EventMessage = { i: number; events: RunEvent[] } | { i: number; event: RunEvent } | { end: RunStatus };

/**
 * The server's side of the queue (CREWTS_REDIS_URL set): kickoffs become BullMQ jobs that `crewts
 * worker` processes run; status comes from the job, events from Redis (a list for the past, pub/sub
 * for what follows), and cancel sets a flag the running worker is told about.
 */
export class QueueRuns implements RunBackend {
  private readonly keys;
  private readonly channels = new Map<string, Set<(message: EventMessage) => void>>();
  private subscriber: Promise<Redis> | undefined;

  private constructor(
    private readonly queue: Queue,
    private readonly client: Redis,
    private readonly options: Required<QueueRunsOptions>,
    // BullMQ's own record of finished jobs (written with the state change): a worker killed between
    // completing a job and announcing its end must not leave /stream waiting.
    private readonly queueEvents: QueueEvents,
  ) {
    this.keys = queueKeys(options.queue);
    // A fallback, so it waits a little: the worker's end message normally comes first, and a
    // subscriber it ended is gone by then (no status read in the way of the next kickoff).
    const recheck = ({ jobId }: { jobId: string }): void => {
      const id = kickoffIdOfJob(jobId);
      if (!this.channels.has(this.keys.eventChannel(id))) return;
      setTimeout(() => {
        const set = this.channels.get(this.keys.eventChannel(id));
        if (!set) return;
        void this.status(id).then((status) => {
          if (!status || !FINAL_STATES.has(status.state)) return;
          for (const handler of [...set]) handler({ end: status });
        }).catch(() => undefined);
      }, RECHECK_MS).unref();
    };
    queueEvents.on("completed", recheck);
    queueEvents.on("failed", recheck);
  }

  /** Connects to the queue at `url` (redis://...). */
  static async connect(url: string, options: QueueRunsOptions = {}): Promise<QueueRuns> {
    const full = { queue: options.queue ?? DEFAULT_QUEUE, attempts: options.attempts ?? 3, backoffMs: options.backoffMs ?? 1000 };
    const { Queue, QueueEvents } = await loadBullMQ();
    const client = await connectRedis(url);
    const queue = new Queue<KickoffJobData>(full.queue, { connection: client });
    const queueEvents = new QueueEvents(full.queue, { connection: redisOptions(url) });
    queueEvents.on("error", () => {});
    await queueEvents.waitUntilReady();
    return new QueueRuns(queue as Queue, client, full, queueEvents);
  }

  async submit(id: string, request: KickoffRequest): Promise<void> {
    // Queued from inside a traced span (not through the server): the job carries that span's context.
    const here = request.trace ? undefined : injectTraceContext<Record<string, string>>({});
    const data: KickoffJobData = here && Object.keys(here).length > 0 ? { ...request, trace: here } : request;
    await this.queue.add("kickoff", data, this.jobOptions(id));
  }

  private jobOptions(jobId: string) {
    return {
      jobId,
      attempts: this.options.attempts,
      backoff: { type: "exponential", delay: this.options.backoffMs },
      removeOnComplete: { age: KEEP_SECONDS },
      removeOnFail: { age: KEEP_SECONDS },
    };
  }

  async status(id: string): Promise<RunStatus | undefined> {
    const [flags, own] = await Promise.all([
      this.client.pipeline().get(this.keys.currentJob(id)).exists(this.keys.cancelled(id)).get(this.keys.paused(id)).get(this.keys.lastStep(id)).exec(),
      this.queue.getJob(id),
    ]);
    const [current, cancelled, pausedText, stepText] = (flags ?? []).map(([, value]) => value) as [string | null, number, string | null, string | null];
    const lastStep = stepText ? { last_step: JSON.parse(stepText) as RunStatus["last_step"] } : {};
    if (pausedText && !cancelled) return { state: "PAUSED", pending: (JSON.parse(pausedText) as PauseRecord).paused.pending, ...lastStep };
    const job = current ? await this.queue.getJob(current) : own;
    // A resumed kickoff whose resume job is being added.
    if (!job) return current && own ? { state: cancelled ? "CANCELLED" : "PENDING", ...lastStep } : undefined;
    const state = await job.getState();
    if (cancelled) return { state: "CANCELLED", ...lastStep };
    switch (state) {
      case "completed":
        return { state: "SUCCESS", result: job.returnvalue as unknown, ...lastStep };
      case "failed":
        return { state: "FAILED", error: job.failedReason, ...lastStep };
      case "active":
        return { state: "RUNNING", ...lastStep };
      default:
        return { state: "PENDING", ...lastStep };
    }
  }

  async resume(id: string, feedback: string, trace?: Record<string, string>): Promise<"resumed" | "not_paused" | "unknown"> {
    const jobId = resumeJobId(id, randomUUID());
    const taken = (await this.client.eval(TAKE_PAUSE, 2, this.keys.paused(id), this.keys.currentJob(id), jobId, KEEP_SECONDS)) as string | null;
    if (!taken) return (await this.status(id)) ? "not_paused" : "unknown";
    const record = JSON.parse(taken) as PauseRecord;
    const data: KickoffJobData = { inputs: {}, ...(record.webhooks ? { webhooks: record.webhooks } : {}), ...(trace ? { trace } : {}), resume: { kickoffId: id, paused: record.paused, feedback } };
    // Any worker takes it: the pause lives in Redis, the checkpoint or flow state in the shared store.
    await this.queue.add("resume", data, this.jobOptions(jobId));
    return "resumed";
  }

  async cancel(id: string): Promise<"cancelled" | "finished" | "unknown"> {
    const status = await this.status(id);
    if (!status) return "unknown";
    if (FINAL_STATES.has(status.state)) return "finished";
    await this.client.multi().set(this.keys.cancelled(id), "1", "EX", KEEP_SECONDS).del(this.keys.paused(id)).publish(this.keys.cancelChannel, id).exec();
    // A job no worker has taken yet is dropped; a running one is aborted by its worker.
    const job = await this.queue.getJob((await this.client.get(this.keys.currentJob(id))) ?? id);
    // Only a job still waiting: one its worker already stopped (failed by the abort) keeps its record for /status and /stream.
    if (job && WAITING_STATES.has(await job.getState())) await job.remove().catch(() => undefined);
    const { pending: _question, ...rest } = status;
    const end: EventMessage = { end: { ...rest, state: "CANCELLED" } };
    await this.client.publish(this.keys.eventChannel(id), JSON.stringify(end));
    return "cancelled";
  }

  async subscribe(id: string, listener: (event: RunEvent) => void, end: (status: RunStatus) => void): Promise<(() => void) | undefined> {
    let delivered = 0;
    let finished = false;
    let early: EventMessage[] | undefined = [];
    const handle = (message: EventMessage): void => {
      if (finished) return;
      if ("end" in message) {
        finished = true;
        off();
        end(message.end);
      } else {
        // Events already read from the log (a batch can straddle the read) are skipped by index.
        const events = "events" in message ? message.events : [message.event];
        for (let k = Math.max(0, delivered - message.i); k < events.length; k++) listener(events[k]!);
        delivered = Math.max(delivered, message.i + events.length);
      }
    };
    const channel = this.keys.eventChannel(id);
    const onMessage = (message: EventMessage): void => {
      if (early) early.push(message);
      else handle(message);
    };
    const off = (): void => {
      const set = this.channels.get(channel);
      set?.delete(onMessage);
      if (set?.size === 0) {
        this.channels.delete(channel);
        void this.subscriber?.then((s) => s.unsubscribe(channel)).catch(() => undefined);
      }
    };
    await this.listen(channel, onMessage);
    // Subscribed first, then the past read: nothing falls in between (live copies of logged events are
    // skipped by index). A status read after subscribing catches a kickoff that ended before.
    const [past, status] = await Promise.all([this.client.lrange(this.keys.eventLog(id), 0, -1), this.status(id)]);
    if (!status) {
      off();
      return undefined;
    }
    past.forEach((line, k) => handle({ i: k, event: JSON.parse(line) as RunEvent }));
    const queued = early;
    early = undefined;
    for (const message of queued) handle(message);
    if (!finished && FINAL_STATES.has(status.state)) {
      // Over by the time its status was read: events written after the log was read may still be on
      // their way over pub/sub, but a finished job's events are all in the log (written before it
      // completed), so the rest is read from there before the end.
      const from = delivered;
      const rest = await this.client.lrange(this.keys.eventLog(id), from, -1);
      // Numbered by their place in the log: a live copy that came in meanwhile is not given twice.
      rest.forEach((line, k) => handle({ i: from + k, event: JSON.parse(line) as RunEvent }));
      handle({ end: status });
    }
    return off;
  }

  async close(): Promise<void> {
    await this.subscriber?.then((s) => s.quit()).catch(() => undefined);
    await this.queueEvents.close();
    await this.queue.close();
    await this.client.quit().catch(() => undefined);
  }

  private async listen(channel: string, onMessage: (message: EventMessage) => void): Promise<void> {
    this.subscriber ??= subscriberOf(this.client).then((subscriber) =>
      subscriber.on("message", (from: string, text: string) => {
        const set = this.channels.get(from);
        if (!set) return;
        const message = JSON.parse(text) as EventMessage;
        for (const handler of set) handler(message);
      }),
    );
    const subscriber = await this.subscriber;
    let set = this.channels.get(channel);
    if (!set) this.channels.set(channel, (set = new Set()));
    set.add(onMessage);
    // Subscribing again is harmless and makes sure the subscription is in place before the past is read.
    await subscriber.subscribe(channel);
  }
}
