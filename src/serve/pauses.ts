import type { PausedKickoff } from "./types.js";

/** A kickoff paused for a human (a `@humanFeedback` method, a task review, a tool approval); POST /resume continues it. */
export class KickoffPausedError extends Error {
  constructor(readonly paused: PausedKickoff) {
    super(`The kickoff paused: ${paused.pending.message}`);
    this.name = "KickoffPausedError";
  }
}

/** A crew paused but wrote no checkpoint to resume from (checkpoints are off for this server). */
export class UnresumablePauseError extends Error {
  constructor(what: string) {
    super(`The kickoff paused for ${what}, but no checkpoint was written to resume it from: turn checkpoints on for served kickoffs (they are on unless checkpoint: false).`);
    this.name = "UnresumablePauseError";
  }
}

const text = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value) ?? "");

/**
 * A flow's kickoff result when it is a HumanFeedbackPending (duck-typed: the project may have its own
 * copy of crewts), as a paused kickoff; undefined for any other result. The provider's callbackInfo
 * is left out (it may hold a webhook's secret).
 */
export function flowPause(result: unknown): PausedKickoff | undefined {
  if (!(result instanceof Error) || result.name !== "HumanFeedbackPending") return undefined;
  const context = (result as { context?: Record<string, unknown> }).context;
  if (!context || typeof context.flowId !== "string") return undefined;
  return {
    kind: "flow",
    ref: context.flowId,
    pending: {
      kind: "human_feedback",
      message: text(context.message),
      method: text(context.methodName),
      output: text(context.methodOutput),
      ...(Array.isArray(context.emit) ? { emit: context.emit.map(String) } : {}),
    },
  };
}

/** A crew's kickoff error when it is a HumanInputPending, as a paused kickoff; undefined for any other error. */
export function crewPause(error: unknown): PausedKickoff | undefined {
  if (!(error instanceof Error) || error.name !== "HumanInputPending") return undefined;
  const { context, checkpointId } = error as { context?: Record<string, unknown>; checkpointId?: unknown };
  if (!context) return undefined;
  const approval = context.kind === "tool_approval";
  if (typeof checkpointId !== "string") throw new UnresumablePauseError(approval ? `approval of tool "${text(context.toolName)}"` : `a review of task "${text(context.taskName)}"`);
  return {
    kind: "crew",
    ref: checkpointId,
    pending: {
      kind: approval ? "tool_approval" : "task_review",
      message: text(context.prompt),
      ...(context.taskName !== undefined ? { task: text(context.taskName) } : {}),
      ...(context.agentRole !== undefined ? { agent: text(context.agentRole) } : {}),
      ...(approval ? { tool: text(context.toolName), tool_input: (context.toolInput ?? {}) as Record<string, unknown> } : {}),
      ...(context.output !== undefined ? { output: text(context.output) } : {}),
    },
  };
}
