import type { AgentRunState } from "./agentRunState.js";
import type { HumanInputContext } from "./humanInput.js";

/**
 * Thrown by a HumanInputProvider to pause a crew (or an agent's own kickoff) until a person answers
 * (a review in a UI, an approval in a chat). The crew writes a checkpoint and its kickoff rejects
 * with this value, its `checkpointId` set: `crew.resume(pending.checkpointId, answer)` continues the
 * run (`agent.resume` for an agent).
 */
export class HumanInputPending extends Error {
  readonly context: HumanInputContext;
  /** What the provider needs to route the answer back (a webhook URL, a ticket id). */
  readonly callbackInfo: Record<string, unknown>;
  /** The checkpoint the paused crew wrote; set before the kickoff rejects. */
  checkpointId: string | undefined;

  constructor(init: { context: HumanInputContext; callbackInfo?: Record<string, unknown>; message?: string }) {
    const what = init.context.kind === "tool_approval" ? `approval of tool "${init.context.toolName ?? ""}"` : `a review of task "${init.context.taskName ?? ""}"`;
    super(init.message ?? `Paused for human input: ${what}. Resume with crew.resume(pending.checkpointId, answer) (agent.resume for an agent's own kickoff).`);
    this.name = "HumanInputPending";
    this.context = init.context;
    this.callbackInfo = init.callbackInfo ?? {};
    this.checkpointId = undefined;
  }
}

/** What a paused crew keeps in its checkpoint about the question it waits on. */
export interface PendingHumanInputRecord {
  context: HumanInputContext;
  callbackInfo: Record<string, unknown>;
  /** Where each agent loop the pause went through stood (see agentRunKey), so resuming asks no model twice. */
  runs?: Record<string, AgentRunState>;
}

/**
 * The answer `crew.resume` brings to the question its run paused on, given once: to the review of
 * the same task (with the output under review, so the agent does not run again first), or to the
 * approval of the same tool with the same input.
 */
export class PreparedHumanAnswer {
  #used = false;
  readonly #runsTaken = new Set<string>();

  constructor(
    readonly pending: PendingHumanInputRecord,
    readonly answer: string,
  ) {}

  /** The review of task `taskName` the run paused on: its output and the answer; once. */
  takeReview(taskName: string): { output: string; answer: string } | undefined {
    const context = this.pending.context;
    if (this.#used || context.kind !== "task_review" || context.taskName !== taskName || typeof context.output !== "string") return undefined;
    this.#used = true;
    return { output: context.output, answer: this.answer };
  }

  /** Where the agent loop `key` stood when the run paused (see agentRunKey); once per key. */
  takeRun(key: string): AgentRunState | undefined {
    const state = this.pending.runs?.[key];
    if (!state || this.#runsTaken.has(key)) return undefined;
    this.#runsTaken.add(key);
    return state;
  }

  /** The answer to `context` when it asks the question the run paused on; once. */
  take(context: HumanInputContext): string | undefined {
    const paused = this.pending.context;
    if (this.#used || paused.kind !== context.kind || paused.toolName !== context.toolName || paused.taskName !== context.taskName) return undefined;
    if (context.kind === "tool_approval" && JSON.stringify(paused.toolInput ?? {}) !== JSON.stringify(context.toolInput ?? {})) return undefined;
    this.#used = true;
    return this.answer;
  }
}
