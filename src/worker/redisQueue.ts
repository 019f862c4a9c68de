import type * as BullMQ from "bullmq";
import type { Redis, RedisOptions } from "ioredis";
import { loadOptionalPeer } from "../storage/optionalPeer.js";

/** The queue crewts serve and crewts worker use unless told otherwise. */
export const DEFAULT_QUEUE = "crewts";

/** The Redis keys and channels of one queue's kickoffs, beside BullMQ's own. */
export function queueKeys(queue: string) {
  const prefix = `crewts:${queue}`;
  return {
    /** Set while a kickoff is cancelled; workers check it before and while running. */
    cancelled: (id: string) => `${prefix}:cancelled:${id}`,
    /** Where a kickoff being cancelled is announced to the worker running it. */
    cancelChannel: `${prefix}:cancel`,
    /** The kickoff's events so far (a list, for /stream subscribers that come late). */
    eventLog: (id: string) => `${prefix}:events:${id}`,
    /** Live events of the kickoff, and its end: `{ i, event }` or `{ end: status }`. */
    eventChannel: (id: string) => `${prefix}:events:${id}`,
    /** The last step the kickoff reached (JSON), for GET /status's last_step. */
    lastStep: (id: string) => `${prefix}:step:${id}`,
    /** A paused kickoff: what POST /resume continues (JSON), gone once resumed or cancelled. */
    paused: (id: string) => `${prefix}:paused:${id}`,
    /** The job running a resumed kickoff now (absent: the kickoff's own job, whose id is the kickoff id). */
    currentJob: (id: string) => `${prefix}:job:${id}`,
    /** The shared request window of a crew's llmRateLimit. */
    rateLimit: (name: string) => `${prefix}:rpm:${name}`,
  };
}

/** The id of a resume job of kickoff `id` (BullMQ ids cannot contain ":"). */
export function resumeJobId(id: string, n: string): string {
  return `${id}.resume-${n}`;
}

/** The kickoff a job runs: its own id, or the kickoff a resume job continues. */
export function kickoffIdOfJob(jobId: string): string {
  const at = jobId.lastIndexOf(".resume-");
  return at < 0 ? jobId : jobId.slice(0, at);
}

/** How long a finished kickoff's status, events and cancel flag stay in Redis. */
export const KEEP_SECONDS = 24 * 60 * 60;

/** ioredis options from a redis:// or rediss:// URL (the password stays out of messages). */
export function redisOptions(url: string): RedisOptions {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError("CREWTS_REDIS_URL is not a URL: use redis://[user:password@]host:6379[/db].");
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
    throw new TypeError(`CREWTS_REDIS_URL must start with redis:// or rediss://, not ${parsed.protocol}//.`);
  }
  const db = parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : 0;
  return {
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : 6379,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    db: Number.isInteger(db) ? db : 0,
    ...(parsed.protocol === "rediss:" ? { tls: {} } : {}),
    // BullMQ's workers block on Redis and need requests that are never given up.
    maxRetriesPerRequest: null,
  };
}

/** A new Redis connection to `url` (ioredis, an optional peer dependency loaded on first use). */
export async function connectRedis(url: string): Promise<Redis> {
  const { Redis } = await loadOptionalPeer(() => import("ioredis"), "ioredis@^5", "crewts worker and serve with CREWTS_REDIS_URL");
  const redis = new Redis(redisOptions(url));
  // ioredis reconnects by itself; say so once per outage instead of an unhandled-error dump per attempt.
  let down = false;
  redis.on("error", (error: Error) => {
    if (!down) process.stderr.write(`crewts: Redis at ${redis.options.host}:${redis.options.port}: ${error.message} (retrying)\n`);
    down = true;
  });
  redis.on("ready", () => (down = false));
  return redis;
}

/**
 * A connection for SUBSCRIBE, ready before it is used: ioredis's ready check (INFO) is not allowed once
 * a connection subscribes, so it is skipped, and reconnects resubscribe by themselves.
 */
export async function subscriberOf(client: Redis): Promise<Redis> {
  const subscriber = client.duplicate({ enableReadyCheck: false });
  // Errors of a dropped connection are retried by ioredis; a listener keeps them from being printed as unhandled.
  subscriber.on("error", () => {});
  if (subscriber.status !== "ready") await new Promise<void>((resolve, reject) => {
    subscriber.once("ready", resolve);
    subscriber.once("end", () => reject(new Error("Could not connect to Redis for subscribing.")));
  });
  return subscriber;
}

/** Loads BullMQ (an optional peer dependency) on first use. */
export function loadBullMQ(): Promise<typeof BullMQ> {
  return loadOptionalPeer(() => import("bullmq"), "bullmq@^5", "crewts worker and serve with CREWTS_REDIS_URL");
}
