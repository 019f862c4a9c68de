import type { ChatMessage, LLMResult } from "../llm/types.js";
import type { UsageMetrics } from "../llm/UsageMetrics.js";

/**
 * Where an agent's loop stands between two of its steps, as plain JSON: enough to continue it in
 * another process without asking the model again for a reply it already gave, or running again a
 * tool call that already returned.
 */
export interface AgentRunState {
  /** The conversation so far. */
  messages: ChatMessage[];
  /** How many leading messages (system and task) are kept whole when the history is summarized. */
  headLength: number;
  /** Model calls made so far (counted against maxIter). */
  iterations: number;
  /** The model answered with native tool calls at least once. */
  native: boolean;
  /** Tokens the loop has used so far. */
  usage: UsageMetrics;
  /** The model's latest reply while it is being acted on: its tool calls are run before the model is asked again. */
  reply?: {
    result: LLMResult;
    /** Native tool calls: the assistant message with the calls is already in `messages`. */
    pushed: boolean;
    /** Native tool calls: how many of them returned (their results are in `messages`). */
    callsDone: number;
  };
}

/** Who an agent loop belongs to in a paused run: the agent's role and the task it works on. */
export function agentRunKey(agentRole: string | undefined, taskDescription: string): string {
  return `${agentRole ?? ""}\u0000${taskDescription}`;
}

const paused = new WeakMap<object, Record<string, AgentRunState>>();

/**
 * Records where the agent loop `key` stood when `pause` (a HumanInputPending) went through it. A pause
 * from inside a tool passes through every loop around it; each keeps its own state, the innermost first.
 */
export function recordPausedRun(pause: object, key: string, state: AgentRunState): void {
  let runs = paused.get(pause);
  if (!runs) paused.set(pause, (runs = {}));
  runs[key] ??= state;
}

/** The loop states recorded on `pause`, by key (empty when no agent loop was running). */
export function pausedRunsOf(pause: object): Record<string, AgentRunState> {
  return paused.get(pause) ?? {};
}
