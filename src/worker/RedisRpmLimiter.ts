import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { RequestLimiter } from "../agent/requestLimiters.js";
import { sleep } from "../llm/retry.js";

// A sliding window kept as a sorted set of request times, checked and taken in one atomic step on
// Redis's own clock (workers' clocks may differ). Returns 0 when a slot was taken, else the ms to wait.
const TAKE_SLOT = `
local key, max, window, member = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
if redis.call('ZCARD', key) < max then
  redis.call('ZADD', key, now, member)
  redis.call('PEXPIRE', key, window)
  return 0
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) + window - now)
`;

/** At most `max` requests in any `windowMs` window, counted in Redis: one limit for every process that shares the key. */
export class RedisRpmLimiter implements RequestLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly key: string,
    readonly max: number,
    readonly windowMs = 60_000,
  ) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`The request limit must be a positive integer, got ${String(max)}.`);
  }

  /** Resolves when a request may be made. */
  async acquire(signal?: AbortSignal): Promise<void> {
    const member = randomUUID();
    for (;;) {
      signal?.throwIfAborted();
      const wait = Number(await this.redis.eval(TAKE_SLOT, 1, this.key, this.max, this.windowMs, member));
      if (wait === 0) return;
      // A little jitter so waiting workers do not all ask again in the same millisecond.
      await sleep(wait + Math.floor(Math.random() * 5), signal);
    }
  }
}
