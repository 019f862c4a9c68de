import { RpmLimiter } from "./RpmLimiter.js";

/** Something that lets LLM requests through at a limited rate (RpmLimiter, or a shared one in Redis). */
export interface RequestLimiter {
  /** Resolves when a request may be made. */
  acquire(signal?: AbortSignal): Promise<void>;
}

/** Makes the limiter of a crew's llmRateLimit, by crew name. */
export type RequestLimiterFactory = (crewName: string, requestsPerMinute: number) => RequestLimiter;

// In one process, every crew with the same name and limit shares one window (a server makes a new
// crew per kickoff; the limit is the crew's, not the kickoff's).
const local = new Map<string, RpmLimiter>();
const localFactory: RequestLimiterFactory = (crewName, requestsPerMinute) => {
  const key = `${crewName}\u0000${requestsPerMinute}`;
  let limiter = local.get(key);
  if (!limiter) local.set(key, (limiter = new RpmLimiter(requestsPerMinute)));
  return limiter;
};
let factory: RequestLimiterFactory = localFactory;

/** The limiter for a crew's `llmRateLimit` (shared across processes when a worker has set a Redis factory). */
export function sharedRequestLimiter(crewName: string, requestsPerMinute: number): RequestLimiter {
  return factory(crewName, requestsPerMinute);
}

/** Replaces where llmRateLimit windows are kept (crewts worker keeps them in Redis); undefined restores the in-process one. */
export function setRequestLimiterFactory(next: RequestLimiterFactory | undefined): void {
  factory = next ?? localFactory;
}
