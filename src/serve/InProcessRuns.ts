import { withHostCheckpoints } from "../runtime/checkpoint/hostCheckpoints.js";
import type { CheckpointConfig } from "../runtime/checkpoint/types.js";
import { withTraceContext } from "../tracing/propagation.js";
import { stepOf } from "./runEvents.js";
import { FINAL_STATES, type KickoffRequest, type RunBackend, type RunController, type RunEvent, type RunStatus } from "./types.js";
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
    const run: Run = { status: { state: "PENDING" }, events: [], listeners: new Set(), abort: new AbortController(), done: Promise.resolve() };
    this.runs.set(id, run);
    this.forgetOld();
    const done = (run.done = this.execute(id, run, request));
    this.executing.add(done);
    void done.finally(() => this.executing.delete(done));
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

  private async execute(id: string, run: Run, request: KickoffRequest): Promise<void> {
    const webhooks = WebhookNotifier.wanted(request.webhooks) ? new WebhookNotifier(id, request.webhooks) : undefined;
    if (this.running >= this.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (FINAL_STATES.has(run.status.state) || this.closing) {
      if (!FINAL_STATES.has(run.status.state)) this.finish(run, { state: "CANCELLED", error: "The server shut down before the kickoff started." });
      this.next();
      await webhooks?.end(run.status);
      return;
    }
    this.running++;
    run.status = { state: "RUNNING" };
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
      const start = () => this.controller.start(request.inputs, { signal: run.abort.signal, onEvent });
      const checkpointed = () => (this.checkpoint ? withHostCheckpoints({ lineage: id, config: this.checkpoint }, start) : start());
      const result = await withTraceContext(request.trace, checkpointed);
      this.finish(run, { ...run.status, state: "SUCCESS", result });
    } catch (error) {
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
