import { untilAborted } from "../llm/retry.js";
import { KickoffAbortedError } from "./KickoffAbortedError.js";
import type { KickoffOptions } from "./KickoffOptions.js";
import { currentRun, eitherSignal, runWithContext, type RunContext, type ScopedHooks } from "./runContext.js";
import { StreamingOutput } from "./StreamingOutput.js";

/** What a kickoff adds to the run context for the work it runs. */
export interface KickoffScopeInfo {
  /** Its tasks (for chunks' taskIndex). */
  tasks?: readonly { id: string }[];
  /** Its own hooks. */
  hooks?: ScopedHooks;
}

/**
 * Runs one kickoff's work under its signal (the caller's, joined with any outer run's). Without a
 * signal, an outer run or hooks, `work` runs as it is. An aborted run rejects with KickoffAbortedError.
 */
export function runKickoff<T>(what: string, options: KickoffOptions | undefined, scope: KickoffScopeInfo, work: () => Promise<T>): Promise<T> {
  const parent = currentRun();
  const signal = eitherSignal(parent?.signal, options?.signal);
  // Not an async function: a plain run's promise is the work's own (work may throw at once, as it would here).
  if (parent === undefined && signal === undefined && scope.hooks === undefined) return work();
  return runInKickoffContext(what, parent, signal, scope, work);
}

async function runInKickoffContext<T>(what: string, parent: RunContext | undefined, signal: AbortSignal | undefined, scope: KickoffScopeInfo, work: () => Promise<T>): Promise<T> {
  if (signal?.aborted) throw new KickoffAbortedError(what, signal.reason);
  const context: RunContext = {
    ...parent,
    signal,
    sink: parent?.sink,
    ...(scope.tasks && parent?.sink ? { taskIds: scope.tasks.map((t) => t.id) } : {}),
    ...(scope.hooks ? { hooks: scope.hooks } : {}),
  };
  try {
    return await runWithContext(context, work);
  } catch (error) {
    if (signal?.aborted) throw error instanceof KickoffAbortedError ? error : new KickoffAbortedError(what, signal.reason);
    throw error;
  }
}

/** Whether the run the caller is in has been aborted (for failure events' `reason`). */
export function runAborted(): boolean {
  return currentRun()?.signal?.aborted === true;
}

/**
 * Starts `work` as a streaming run: its chunks go to the returned StreamingOutput, and a consumer
 * that stops iterating aborts it. `work` receives the signal to pass on to the plain kickoff.
 */
export function streamKickoff<T>(options: KickoffOptions | undefined, work: (signal: AbortSignal) => Promise<T>): StreamingOutput<T> {
  const controller = new AbortController();
  const parent = currentRun();
  // Stopped by the consumer, by the caller's signal, or by an outer run being aborted.
  const signal = eitherSignal(eitherSignal(parent?.signal, options?.signal), controller.signal)!;
  return new StreamingOutput<T>(
    (sink) => runWithContext({ ...parent, signal, sink }, () => work(signal)),
    (reason) => controller.abort(reason),
  );
}

/**
 * Settles with `running`, or rejects as soon as the run's signal aborts (a flow method may await
 * anything; the run must still stop within milliseconds).
 */
export function untilRunAborted<T>(running: Promise<T>): Promise<T> {
  return untilAborted(running, currentRun()?.signal, "The run was aborted.");
}
