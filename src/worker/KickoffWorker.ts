import type { Job, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { setRequestLimiterFactory } from "../agent/requestLimiters.js";
import { checkpointStoreFor } from "../runtime/checkpoint/checkpointStores.js";
import { withHostCheckpoints } from "../runtime/checkpoint/hostCheckpoints.js";
import type { CheckpointConfig } from "../runtime/checkpoint/types.js";
import { withTraceContext } from "../tracing/propagation.js";
import { errorText } from "../serve/InProcessRuns.js";
import { KickoffPausedError } from "../serve/pauses.js";
import type { RunController, RunEvent, RunOptions, RunStatus } from "../serve/types.js";
import { WebhookNotifier } from "../serve/webhooks.js";
import { EventRelay } from "./eventRelay.js";
import type { EventMessage, KickoffJobData, PauseRecord } from "./QueueRuns.js";
import { connectRedis, DEFAULT_QUEUE, KEEP_SECONDS, kickoffIdOfJob, loadBullMQ, queueKeys, subscriberOf } from "./redisQueue.js";

// What a job whose kickoff paused returns: its end is not announced (the pause record in Redis says PAUSED).
const PAUSED = { crewtsPaused: true } as const;
const pausedResult = (result: unknown): boolean => typeof result === "object" && result !== null && (result as { crewtsPaused?: unknown }).crewtsPaused === true;
import { RedisRpmLimiter } from "./RedisRpmLimiter.js";

/** Options of startWorker. */
export interface KickoffWorkerOptions {
  /** Runs one kickoff (a crew or flow controller from crewts/serve). */
  controller: RunController;
  /** redis://...; default CREWTS_REDIS_URL. */
  redisUrl?: string;
  /** The queue name; default "crewts". */
  queue?: string;
  /** Kickoffs this worker runs at once; default 10. */
  concurrency?: number;
  /**
   * How long a worker's hold on a job lasts without renewal; a worker that dies loses its jobs to the
   * others this long after (BullMQ's stalled-job check). Default 30 000 ms.
   */
  lockDurationMs?: number;
  /** The window of llmRateLimit in Redis (requestsPerMinute scaled to it); default 60 000 ms. */
  rateLimitWindowMs?: number;
  /**
   * Where kickoffs without a checkpoint option of their own write checkpoints (a lineage per kickoff
   * id, resumed by a retry); default: Postgres with CREWTS_DATABASE_URL, else ./.checkpoints. false: none.
   */
  checkpoint?: CheckpointConfig | false;
}

/** A running `crewts worker`. */
export interface KickoffWorker {
  readonly worker: Worker;
  /** Stops taking jobs; running kickoffs get `graceMs` to finish, then are aborted (and retried elsewhere). */
  close(graceMs?: number): Promise<void>;
}

/**
 * Runs kickoffs from the queue: `concurrency` at a time, their events relayed through Redis to
 * /stream, cancels heard on a channel and turned into an abort, webhooks told, and every crew's
 * llmRateLimit counted in Redis so it holds across all workers. A job whose worker dies is taken
 * over by another after `lockDurationMs` (stalled-job recovery) and resumed from its newest checkpoint.
 */
export async function startWorker(options: KickoffWorkerOptions): Promise<KickoffWorker> {
  const url = options.redisUrl ?? process.env.CREWTS_REDIS_URL;
  if (!url) throw new TypeError("crewts worker needs Redis: set CREWTS_REDIS_URL=redis://host:6379 (scripts/services.sh start runs one for development).");
  const { Worker, UnrecoverableError } = await loadBullMQ();
  const name = options.queue ?? DEFAULT_QUEUE;
  const keys = queueKeys(name);
  const client: Redis = await connectRedis(url);
  const running = new Map<string, AbortController>();
  const checkpoint = options.checkpoint === false ? undefined : (options.checkpoint ?? {});
  // Set when the worker shuts down: the kickoffs it aborts then are retried elsewhere, not cancelled.
  let shuttingDown = false;

  const windowMs = options.rateLimitWindowMs ?? 60_000;
  setRequestLimiterFactory((crewName, requestsPerMinute) => new RedisRpmLimiter(client, keys.rateLimit(crewName), Math.max(1, Math.round((requestsPerMinute * windowMs) / 60_000)), windowMs));

  const subscriber = await subscriberOf(client);
  subscriber.on("message", (_channel: string, id: string) => running.get(id)?.abort(new Error("The kickoff was cancelled.")));
  await subscriber.subscribe(keys.cancelChannel);

  const publishEnd = async (id: string, status: RunStatus): Promise<void> => {
    const message: EventMessage = { end: status };
    await client.publish(keys.eventChannel(id), JSON.stringify(message));
  };

  const processor = async (job: Job<KickoffJobData>): Promise<unknown> => {
    const id = job.data.resume?.kickoffId ?? job.id!;
    const log = keys.eventLog(id);
    const abort = new AbortController();
    running.set(id, abort);
    // A kickoff cancelled before it was taken: checked while the run starts (not a round trip before
    // it), the run is aborted at once and the job ends as cancelled.
    const checked = client.exists(keys.cancelled(id)).then((cancelled) => {
      if (cancelled) abort.abort(new Error("The kickoff was cancelled."));
    }, () => undefined);
    const { webhooks } = job.data;
    const notifier = WebhookNotifier.wanted(webhooks) ? new WebhookNotifier(id, webhooks) : undefined;
    // Events are written in batches without waiting: one connection keeps them in order, and the
    // end message (published on it after the job completes) comes after them. A retry appends to the same log.
    const relay = new EventRelay(client, { log, channel: keys.eventChannel(id), step: keys.lastStep(id), keepSeconds: KEEP_SECONDS });
    const onEvent = (event: RunEvent): void => {
      relay.push(event);
      notifier?.event(event);
    };
    // Every kickoff writes checkpoints into a lineage named by its id (in Postgres when
    // CREWTS_DATABASE_URL is set): a retried or stalled job resumes from the newest, so the tasks
    // its crashed attempt finished are not run again.
    try {
      let fromCheckpoint: string | undefined;
      const resume = job.data.resume;
      // A retried resume job answers its pause again (from the pause's checkpoint or flow state).
      if (!resume && (job.attemptsMade > 0 || job.stalledCounter > 0)) {
        if (checkpoint) fromCheckpoint = (await checkpointStoreFor(checkpoint).list({ lineage: id })).at(-1)?.id;
        onEvent({ type: "kickoff_retried", attempt: job.attemptsMade + job.stalledCounter + 1, ...(fromCheckpoint ? { fromCheckpoint } : {}) });
      }
      const runOptions: RunOptions = { signal: abort.signal, onEvent, ...(fromCheckpoint ? { fromCheckpoint } : {}) };
      const start = () => (resume ? resumeWith(options.controller, resume.paused, resume.feedback, runOptions) : options.controller.start(job.data.inputs, runOptions));
      const checkpointed = () => (checkpoint ? withHostCheckpoints({ lineage: id, config: checkpoint }, start) : start());
      // The kickoff's spans continue the trace of whoever queued it (the server's request).
      const result = await withTraceContext(job.data.trace, checkpointed);
      await checked;
      if (abort.signal.aborted && !shuttingDown) throw new UnrecoverableError("The kickoff was cancelled.");
      return result;
    } catch (error) {
      await checked;
      if (abort.signal.aborted && !shuttingDown) throw new UnrecoverableError("The kickoff was cancelled.");
      if (error instanceof KickoffPausedError) {
        // Recorded before the job completes, so /status never sees it as SUCCESS; any worker takes the resume job.
        const record: PauseRecord = { paused: error.paused, ...(webhooks ? { webhooks } : {}) };
        await client.set(keys.paused(id), JSON.stringify(record), "EX", KEEP_SECONDS);
        onEvent({ type: "kickoff_paused", pending: error.paused.pending });
        await relay.flush();
        return PAUSED;
      }
      throw new Error(errorText(error), { cause: error });
    } finally {
      running.delete(id);
      void relay.flush();
      if (relay.lastStep) lastSteps.set(id, relay.lastStep);
      if (notifier) notifierEnd.set(id, notifier);
    }
  };

  // The last step of each kickoff whose job just ended here, for its end status.
  const lastSteps = new Map<string, NonNullable<RunStatus["last_step"]>>();
  const lastStepOf = (id: string): { last_step?: RunStatus["last_step"] } => {
    const step = lastSteps.get(id);
    lastSteps.delete(id);
    return step ? { last_step: step } : {};
  };
  // The crew webhook is told once the job's outcome is final (after the last retry).
  const notifierEnd = new Map<string, WebhookNotifier>();
  const worker = new Worker<KickoffJobData>(name, processor, {
    connection: client,
    concurrency: options.concurrency ?? 10,
    lockDuration: options.lockDurationMs ?? 30_000,
    stalledInterval: Math.max(500, Math.floor((options.lockDurationMs ?? 30_000) / 2)),
    maxStalledCount: 3,
  });
  worker.on("error", (error) => process.stderr.write(`crewts worker: ${error.message}\n`));
  worker.on("completed", (job, result: unknown) => {
    const id = kickoffIdOfJob(job.id!);
    const notifier = notifierEnd.get(id);
    notifierEnd.delete(id);
    const lastStep = lastStepOf(id);
    if (pausedResult(result)) return;
    const status: RunStatus = { state: "SUCCESS", result, ...lastStep };
    void publishEnd(id, status);
    void notifier?.end(status);
  });
  worker.on("failed", (job, error) => {
    if (!job) return;
    const id = kickoffIdOfJob(job.id!);
    const retrying = !(error instanceof UnrecoverableError) && job.attemptsMade < (job.opts.attempts ?? 1);
    const notifier = notifierEnd.get(id);
    notifierEnd.delete(id);
    const lastStep = lastStepOf(id);
    if (retrying) return;
    void (async () => {
      const cancelled = (await client.exists(keys.cancelled(id))) > 0;
      const status: RunStatus = cancelled ? { state: "CANCELLED", ...lastStep } : { state: "FAILED", error: job.failedReason, ...lastStep };
      await publishEnd(id, status);
      await notifier?.end(status);
    })().catch(() => undefined);
  });
  await worker.waitUntilReady();

  return {
    worker,
    async close(graceMs = 30_000) {
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
      const closing = worker.close();
      await Promise.race([closing, graceOver]);
      clearTimeout(timer);
      shuttingDown = true;
      for (const abort of running.values()) abort.abort(new Error("The worker shut down."));
      await closing;
      setRequestLimiterFactory(undefined);
      await subscriber.quit().catch(() => undefined);
      await client.quit().catch(() => undefined);
    },
  };
}

function resumeWith(controller: RunController, paused: PauseRecord["paused"], feedback: string, options: RunOptions): Promise<unknown> {
  if (!controller.resume) throw new TypeError("This worker's controller has no resume(paused, feedback, options): it cannot continue paused kickoffs.");
  return controller.resume(paused, feedback, options);
}
