/** Where a kickoff is: CrewAI's deployment states. */
export type KickoffState = "PENDING" | "RUNNING" | "PAUSED" | "SUCCESS" | "FAILED" | "CANCELLED";

/** States a kickoff does not leave. */
export const FINAL_STATES: ReadonlySet<KickoffState> = new Set(["SUCCESS", "FAILED", "CANCELLED"]);

/** URLs told about a kickoff as it goes (CrewAI's deployment webhooks); each receives JSON POSTs. */
export interface KickoffWebhooks {
  /** Once, when the kickoff ends (success, failure or cancel). */
  crewWebhookUrl?: string;
  /** After each task. */
  taskWebhookUrl?: string;
  /** After each agent step. */
  stepWebhookUrl?: string;
}

/** What POST /kickoff asks for. */
export interface KickoffRequest {
  inputs: Record<string, unknown>;
  webhooks?: KickoffWebhooks;
  /** W3C trace context (`traceparent`, `tracestate`) of what asked for the kickoff: its spans continue that trace. */
  trace?: Record<string, string>;
}

/** A run's event as /stream sends it: the event's type and its JSON-safe fields. */
export interface RunEvent {
  type: string;
  [field: string]: unknown;
}

/** What a paused kickoff waits for (GET /status's `pending`): the question, never the provider's callback details. */
export interface PendingInput {
  /** human_feedback: a flow's `@humanFeedback` method; task_review: a task with humanInput; tool_approval: a tool with needsApproval. */
  kind: "human_feedback" | "task_review" | "tool_approval";
  /** The question as a person would be asked it. */
  message: string;
  /** human_feedback: the flow method and the outcomes the feedback is mapped to. */
  method?: string;
  emit?: string[];
  task?: string;
  agent?: string;
  /** tool_approval: the tool and the input it would run with. */
  tool?: string;
  tool_input?: Record<string, unknown>;
  /** The output under review. */
  output?: string;
}

/** What a paused kickoff needs to go on (JSON, kept in Redis for the queue): the flow id or the crew's checkpoint. */
export interface PausedKickoff {
  /** flow: resumed with `fromPending(ref)` then `resume(feedback)`; crew: with `crew.resume(ref, feedback)`. */
  kind: "flow" | "crew";
  ref: string;
  /** What the run waits for, as GET /status shows it. */
  pending: PendingInput;
}

/** What GET /status answers. */
export interface RunStatus {
  state: KickoffState;
  /** The result of a finished kickoff (the crew's raw output and, when there is one, its JSON). */
  result?: unknown;
  /** Why a kickoff failed. */
  error?: string;
  /** The latest step the run reached (a task or method name and what it did). */
  last_step?: { type: string; name?: string; output?: string };
  /** PAUSED: what the kickoff waits for; POST /resume answers it. */
  pending?: PendingInput;
}

/** Options of one run: the signal aborts it, onEvent hears its events and chunks. */
export interface RunOptions {
  signal: AbortSignal;
  onEvent: (event: RunEvent) => void;
  /** Resume from this checkpoint (a worker retrying a run that crashed). */
  fromCheckpoint?: string;
}

/**
 * What the server runs: the project's crew or flow behind one small seam. `start` runs one kickoff and
 * resolves with its JSON-safe result; the events of that kickoff (and only those) reach `onEvent`.
 */
export interface RunController {
  /** The names of the inputs the kickoff uses (the `{placeholders}` of a crew's tasks and agents). */
  inputs(): Promise<string[]>;
  start(inputs: Record<string, unknown>, options: RunOptions): Promise<unknown>;
  /**
   * Continues a kickoff that paused (`start` or an earlier `resume` rejected with a KickoffPausedError)
   * with the human's answer; resolves like `start`, or rejects with a KickoffPausedError again.
   */
  resume?(paused: PausedKickoff, feedback: string, options: RunOptions): Promise<unknown>;
}

/** Where kickoffs run and are tracked: in this process, or on workers through a queue. */
export interface RunBackend {
  submit(id: string, request: KickoffRequest): Promise<void>;
  status(id: string): Promise<RunStatus | undefined>;
  /**
   * Continues a PAUSED kickoff with the human's answer: "resumed", "not_paused" (it is in another
   * state, or another resume got there first), or "unknown".
   */
  resume(id: string, feedback: string, trace?: Record<string, string>): Promise<"resumed" | "not_paused" | "unknown">;
  /** "cancelled", "finished" (too late: already over), or "unknown". */
  cancel(id: string): Promise<"cancelled" | "finished" | "unknown">;
  /**
   * Calls `listener` with the run's events so far, then the live ones, then `end` once the run is over.
   * Resolves with the unsubscribe function, or undefined for an unknown id.
   */
  subscribe(id: string, listener: (event: RunEvent) => void, end: (status: RunStatus) => void): Promise<(() => void) | undefined>;
  /** Stops taking kickoffs; running ones get `graceMs` to finish, then are aborted. */
  close(graceMs: number): Promise<void>;
}
