import type { CallDeadline } from "./CallDeadline.js";
import { LLMError } from "./errors.js";

/** How the retry loop waits between attempts. */
export interface RetryPolicy {
  /** Retries after the first attempt (0: no retry). */
  maxRetries: number;
  /** Backoff ceiling of the first retry; doubles each retry. */
  baseDelayMs: number;
  /** No wait is longer than this, Retry-After included. */
  maxDelayMs: number;
}

/** One failed attempt that will be retried. */
export interface RetryNotice {
  /** The 1-based number of the attempt that failed. */
  attempt: number;
  delayMs: number;
  error: LLMError;
}

/** Options of withRetries. */
export interface WithRetriesOptions extends RetryPolicy {
  /** Stops the waits (and any further attempt) at once. */
  signal?: AbortSignal;
  /** Consulted before each retry; false ends the retries (e.g. streamed text cannot be replayed). */
  canRetry?: () => boolean;
  /** Called before each wait. */
  onRetry?: (notice: RetryNotice) => void;
  /** Source of randomness for jitter (tests pin it). */
  random?: () => number;
  /** The call's total deadline: no retry starts after it, and a wait that would end past it ends the retries. */
  deadline?: CallDeadline;
}

/** The default retry policy: 3 retries, 1 s base, 30 s cap. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, baseDelayMs: 1000, maxDelayMs: 30_000 };

/** Exponential backoff with full jitter: a random wait in [0, min(max, base * 2^(retry-1))]. */
export function backoffDelayMs(retry: number, baseDelayMs: number, maxDelayMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.round(random() * ceiling);
}

/**
 * The wait a provider asks for, in milliseconds: `retry-after-ms` (OpenAI), else `retry-after` in
 * seconds or as an HTTP date. Undefined when absent or unreadable. Header names are matched case-insensitively.
 */
export function parseRetryAfter(headers: Record<string, string | undefined> | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const lower = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  const ms = Number.parseFloat(lower.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return Math.ceil(ms);
  const raw = lower.get("retry-after")?.trim();
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.ceil(Number.parseFloat(raw) * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The wait before retry number `retry`: what the provider asked for (capped at maxDelayMs, and
 * never shorter than asked when under the cap), else jittered backoff.
 */
export function retryDelayMs(retry: number, error: LLMError, policy: RetryPolicy, random?: () => number): number {
  if (error.retryAfterMs !== undefined) return Math.min(error.retryAfterMs, policy.maxDelayMs);
  return backoffDelayMs(retry, policy.baseDelayMs, policy.maxDelayMs, random);
}

/** The error a cancelled signal stands for: its reason when that is an Error, else an AbortError saying `message`. */
export function abortReason(signal: AbortSignal, message = "The LLM call was aborted."): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException(message, "AbortError");
}

/**
 * Settles as `running` does, or rejects as soon as `signal` aborts: what was started may ignore its
 * signal (a user's tool, a flow method), but whoever awaits it must not wait on.
 */
export function untilAborted<T>(running: T | PromiseLike<T>, signal: AbortSignal | undefined, message?: string): Promise<T> {
  if (signal === undefined) return Promise.resolve(running);
  if (signal.aborted) return Promise.reject(abortReason(signal, message));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal, message));
    signal.addEventListener("abort", onAbort, { once: true });
    Promise.resolve(running).then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/**
 * A promise rejected with `error` as it was thrown: what a function that is not async returns when its
 * synchronous part throws, so callers see a rejection exactly as from an async function.
 */
export function rejectedWith<T = never>(error: unknown): Promise<T> {
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the value thrown, unchanged, as an async function rejects with it
  return Promise.reject(error);
}

/** Waits `ms` on a timer; an abort clears the timer and rejects at once, so nothing keeps the process alive. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    // Without a signal, just a timer: no listener made for each of many waits in flight.
    if (!signal) {
      setTimeout(resolve, ms);
      return;
    }
    if (signal.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Runs `attempt` until it succeeds, throws something not retryable, or retries (or the deadline)
 * run out. Only retryable LLMErrors are retried; the error finally thrown records how many attempts were made.
 */
export async function withRetries<T>(attempt: (attemptNumber: number) => Promise<T>, options: WithRetriesOptions): Promise<T> {
  for (let attemptNumber = 1; ; attemptNumber++) {
    try {
      return await attempt(attemptNumber);
    } catch (error) {
      if (!(error instanceof LLMError)) throw error;
      const retry = error.retryable && attemptNumber <= options.maxRetries && options.canRetry?.() !== false;
      if (!retry || options.signal?.aborted) {
        throw error.recordAttempts(attemptNumber);
      }
      const delayMs = retryDelayMs(attemptNumber, error, options, options.random);
      if (options.deadline !== undefined && Date.now() + delayMs >= options.deadline.at) {
        error.recordAttempts(attemptNumber).message += ` ${options.deadline.noRetryText()}`;
        throw error;
      }
      options.onRetry?.({ attempt: attemptNumber, delayMs, error });
      await sleep(delayMs, options.signal);
    }
  }
}
