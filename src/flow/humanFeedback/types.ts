import type { BaseLLM } from "../../llm/types.js";
import type { CrewPauseInfo } from "./crewPause.js";

/** What a human said about one flow method's output, and where it routed (CrewAI's HumanFeedbackResult). */
export interface HumanFeedbackResult {
  /** The output shown to the human (after the `learn` pre-review, when that changed it). */
  output: unknown;
  /** The human's words, as given ("" when they skipped). */
  feedback: string;
  /** The `emit` outcome the feedback was mapped to; null without `emit`. */
  outcome: string | null;
  timestamp: Date;
  methodName: string;
  metadata: Record<string, unknown>;
}

/** Everything needed to ask for feedback now and to resume the flow later (CrewAI's PendingFeedbackContext). */
export interface PendingFeedbackContext {
  flowId: string;
  /** The flow's class name. */
  flowClass: string;
  methodName: string;
  /** The output to review. */
  methodOutput: unknown;
  message: string;
  emit: string[] | null;
  defaultOutcome: string | null;
  metadata: Record<string, unknown>;
  /** The model that maps feedback to an outcome, when given as a model string. */
  llm: string | null;
  requestedAt: Date;
  /** Set when a crew inside the method paused for human input (not @humanFeedback): `resume(answer)` answers the crew. */
  crewPause?: CrewPauseInfo;
}

/**
 * Collects feedback for a flow method: resolve with the human's words, or throw
 * `new HumanFeedbackPending({ context, callbackInfo })` to pause the flow until `resume(feedback)`.
 */
export interface HumanFeedbackProvider {
  requestFeedback(context: PendingFeedbackContext, flow: object): Promise<string>;
}

/** Options of `@humanFeedback` (CrewAI's `@human_feedback`). */
export interface HumanFeedbackOptions {
  /** Shown to the human with the method's output. */
  message: string;
  /** Outcomes the feedback is mapped to; the outcome is routed like a router's return value. */
  emit?: readonly string[];
  /** The model that maps feedback to an outcome (needed with `emit`), pre-reviews and distils lessons with `learn`. */
  llm?: string | BaseLLM;
  /** The outcome for empty feedback, and for a model answer that is not one of `emit`. */
  defaultOutcome?: string;
  /** Asks the human another way than the terminal (a UI, a chat, a webhook); may pause the flow. */
  provider?: HumanFeedbackProvider;
  /** Distil lessons from feedback and apply past lessons to the output before the human sees it. */
  learn?: boolean;
  /** How many past lessons the pre-review applies (default 5). */
  learnLimit?: number;
  /** Carried into the context and the result, for integrations. */
  metadata?: Record<string, unknown>;
}

/** Thrown by a provider to pause the flow; `flow.kickoff()` then resolves with it (the state is persisted). */
export class HumanFeedbackPending extends Error {
  readonly context: PendingFeedbackContext;
  /** What the provider needs to route the answer back (a webhook URL, a ticket id). */
  readonly callbackInfo: Record<string, unknown>;

  constructor(init: { context: PendingFeedbackContext; callbackInfo?: Record<string, unknown>; message?: string }) {
    super(init.message ?? `Flow "${init.context.flowClass}" (id ${init.context.flowId}) paused for human feedback on "${init.context.methodName}". Resume it with (await ${init.context.flowClass}.fromPending("${init.context.flowId}")).resume(feedback).`);
    this.name = "HumanFeedbackPending";
    this.context = init.context;
    this.callbackInfo = init.callbackInfo ?? {};
  }
}

/** Human feedback could not be collected or mapped (no terminal and no provider, a bad option, a model answer outside `emit`). */
export class HumanFeedbackError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "HumanFeedbackError";
  }
}
