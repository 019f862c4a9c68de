import { withHostCheckpoints } from "../runtime/checkpoint/hostCheckpoints.js";
import type { CheckpointConfig } from "../runtime/checkpoint/types.js";
import { withTraceContext } from "../tracing/propagation.js";
import { KickoffPausedError } from "./pauses.js";
import { stepOf } from "./runEvents.js";
import { FINAL_STATES, type KickoffRequest, type PausedKickoff, type RunBackend, type RunController, type RunEvent, type RunOptions, type RunStatus } from "./types.js";
import { WebhookNotifier } from "./webhooks.js";

/** The server is shutting down and takes no new kickoffs. */
export class ServerClosingError extends Error {
  constructor() {
    super("The server is shutting down and takes no new kickoffs; send it to another instance.");
    this.name = "ServerClosingError";
  }
}

interface Run {
  status: RunStatus;
  events: RunEvent[];
  listeners: Set<{ event: (e: RunEvent) => void; end: (s: RunStatus) => void }>;
  abort: AbortController;
  done: Promise<void>;
  webhooks: WebhookNotifier | undefined;
  /** Set while PAUSED: what POST /resume continues. */
  paused?: PausedKickoff;
}

/** Options of InProcessRuns. */
export interface InProcessRunsOptions {
  /** Kickoffs running at once; the rest wait as PENDING. Default 10. */
  concurrency?: number;
  /** Finished kickoffs whose status is kept (oldest forgotten first). Default 10 000. */
  keepFinished?: number;
  /** Events kept per kickoff for late /stream subscribers. Default 1 000. */
  keepEvents?: number;
  /**
   * Where kickoffs without a checkpoint option of their own write checkpoints (a lineage per kickoff
   * id: a cancelled run can be resumed); default: Postgres with CREWTS_DATABASE_URL, else ./.checkpoints. false: none.
   */
  checkpoint?: CheckpointConfig | false;
}

/** Runs kickoffs in this process (no Redis configured): a few at a time, with status, events and cancel. */
export class InProcessRuns implements RunBackend {
  private readonly runs = new Map<string, Run>();
  // Kickoffs whose code still runs, cancelled ones included (a cancelled crew stops at its next abort check).
  private readonly executing = new Set<Promise<void>>();
  private readonly waiting: (() => void)[] = [];
  private running = 0;
  private closing = false;
  private readonly concurrency: number;
  private readonly keepFinished: number;
  private readonly keepEvents: number;
  private readonly checkpoint: CheckpointConfig | undefined;

  constructor(
    private readonly controller: RunController,
    options: InProcessRunsOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 10;
    this.keepFinished = options.keepFinished ?? 10_000;
    this.keepEvents = options.keepEvents ?? 1_000;
    this.checkpoint = options.checkpoint === false ? undefined : (options.checkpoint ?? {});
  }

  async submit(id: string, request: KickoffRequest): Promise<void> {
    if (this.closing) throw new ServerClosingError();
    const webhooks = WebhookNotifier.wanted(request.webhooks) ? new WebhookNotifier(id, request.webhooks) : undefined;
    const run: Run = { status: { state: "PENDING" }, events: [], listeners: new Set(), abort: new AbortController(), done: Promise.resolve(), webhooks };
    this.runs.set(id, run);
    this.forgetOld();
    this.launch(id, run, request.trace, (options) => this.controller.start(request.inputs, options));
  }

  async resume(id: string, feedback: string, trace?: Record<string, string>): Promise<"resumed" | "not_paused" | "unknown"> {
    const run = this.runs.get(id);
    if (!run) return "unknown";
    const paused = run.paused;
    if (run.status.state !== "PAUSED" || !paused) return "not_paused";
    if (this.closing) throw new ServerClosingError();
    const resume = this.controller.resume?.bind(this.controller);
    if (!resume) throw new TypeError("This server's controller has no resume(paused, feedback, options): its paused kickoffs cannot be resumed.");
    // Taken at once, so a second resume of the same pause finds it RUNNING.
    run.paused = undefined;
    const { pending: _answered, ...rest } = run.status;
    run.status = { ...rest, state: "PENDING" };
    this.launch(id, run, trace, (options) => resume(paused, feedback, options));
    return "resumed";
  }

  async status(id: string): Promise<RunStatus | undefined> {
    const run = this.runs.get(id);
    return run && { ...run.status };
  }

  async cancel(id: string): Promise<"cancelled" | "finished" | "unknown"> {
    const run = this.runs.get(id);
    if (!run) return "unknown";
    if (FINAL_STATES.has(run.status.state)) return "finished";
    this.finish(run, { ...run.status, state: "CANCELLED" });
    run.abort.abort(new Error("The kickoff was cancelled."));
    return "cancelled";
  }

  async subscribe(id: string, event: (e: RunEvent) => void, end: (s: RunStatus) => void): Promise<(() => void) | undefined> {
    const run = this.runs.get(id);
    if (!run) return undefined;
    for (const e of run.events) event(e);
    if (FINAL_STATES.has(run.status.state)) {
      end({ ...run.status });
      return () => {};
    }
    const listener = { event, end };
    run.listeners.add(listener);
    return () => void run.listeners.delete(listener);
  }

  async close(graceMs: number): Promise<void> {
    this.closing = true;
    // Kickoffs that never started are cancelled at once; running ones get the grace period.
    for (const wake of this.waiting.splice(0)) wake();
    const pending = [...this.runs.values()].filter((run) => !FINAL_STATES.has(run.status.state));
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([Promise.all(this.executing), graceOver]);
    clearTimeout(timer);
    for (const run of pending) {
      if (FINAL_STATES.has(run.status.state)) continue;
      this.finish(run, { ...run.status, state: "CANCELLED", error: "The server shut down before the kickoff finished." });
      run.abort.abort(new Error("The server shut down."));
    }
  }

  private launch(id: string, run: Run, trace: Record<string, string> | undefined, work: (options: RunOptions) => Promise<unknown>): void {
    const done = (run.done = this.execute(id, run, trace, work));
    this.executing.add(done);
    void done.finally(() => this.executing.delete(done));
  }

  private async execute(id: string, run: Run, trace: Record<string, string> | undefined, work: (options: RunOptions) => Promise<unknown>): Promise<void> {
    const webhooks = run.webhooks;
    if (this.running >= this.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (FINAL_STATES.has(run.status.state) || this.closing) {
      if (!FINAL_STATES.has(run.status.state)) this.finish(run, { state: "CANCELLED", error: "The server shut down before the kickoff started." });
      this.next();
      await webhooks?.end(run.status);
      return;
    }
    this.running++;
    run.status = { ...(run.status.last_step ? { last_step: run.status.last_step } : {}), state: "RUNNING" };
    const onEvent = (event: RunEvent): void => {
      if (FINAL_STATES.has(run.status.state)) return;
      const step = stepOf(event);
      if (step) run.status.last_step = step;
      run.events.push(event);
      if (run.events.length > this.keepEvents) run.events.shift();
      for (const listener of run.listeners) listener.event(event);
      webhooks?.event(event);
    };
    try {
      const start = () => work({ signal: run.abort.signal, onEvent });
      const checkpointed = () => (this.checkpoint ? withHostCheckpoints({ lineage: id, config: this.checkpoint }, start) : start());
      const result = await withTraceContext(trace, checkpointed);
      this.finish(run, { ...run.status, state: "SUCCESS", result });
    } catch (error) {
      if (error instanceof KickoffPausedError && !FINAL_STATES.has(run.status.state)) {
        // Paused: the slot is free until POST /resume; /stream hears it and stays open.
        onEvent({ type: "kickoff_paused", pending: error.paused.pending });
        run.paused = error.paused;
        run.status = { ...run.status, state: "PAUSED", pending: error.paused.pending };
        return;
      }
      this.finish(run, { ...run.status, state: "FAILED", error: errorText(error) });
    } finally {
      this.running--;
      this.next();
    }
    await webhooks?.end(run.status);
  }

  /** Records the final status (the first one wins: a cancelled run that ends later stays cancelled). */
  private finish(run: Run, status: RunStatus): void {
    if (FINAL_STATES.has(run.status.state)) return;
    run.status = status;
    for (const listener of run.listeners) listener.end({ ...status });
    run.listeners.clear();
  }

  private next(): void {
    this.waiting.shift()?.();
  }

  private forgetOld(): void {
    if (this.runs.size <= this.keepFinished) return;
    for (const [id, run] of this.runs) {
      if (this.runs.size <= this.keepFinished) break;
      if (FINAL_STATES.has(run.status.state)) this.runs.delete(id);
    }
  }
}

/** An error as one line for a status: its message, never its stack. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
