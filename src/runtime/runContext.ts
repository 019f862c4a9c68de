import { AsyncLocalStorage } from "node:async_hooks";
import type { PreparedHumanAnswer } from "./humanInputPending.js";
import type { PausedCrewAnswer } from "./pausedCrew.js";
import type { StreamChunk } from "./StreamChunk.js";

/** Crew-scoped hooks as the run carries them (see src/hooks); kept opaque here so runtime depends on nothing above it. */
export type ScopedHooks = object;

/**
 * What one kickoff hands down to everything it runs, however deep (a crew inside a flow method, an
 * agent inside a task): the abort signal, the chunk sink of a streaming run, and where the work is.
 * Carried by AsyncLocalStorage and entered only when a kickoff uses one of these, so a plain run
 * pays nothing.
 */
export interface RunContext {
  readonly signal: AbortSignal | undefined;
  /** Receives every chunk of a streaming run. */
  readonly sink: ((chunk: StreamChunk) => void) | undefined;
  /** The flow method being run. */
  readonly methodName?: string;
  /** kickoffForEach: the position of this run's inputs. */
  readonly runIndex?: number;
  /** Ids of the crew's tasks, in order, for a chunk's taskIndex. */
  readonly taskIds?: readonly string[];
  /** The innermost crew's own hooks. */
  readonly hooks?: ScopedHooks;
  /** `crew.resume`: the answer to the question the run paused on. */
  readonly humanAnswer?: PreparedHumanAnswer;
  /** A flow resumed from a crew's pause: the answer its crew takes when kicked off again. */
  readonly pausedCrew?: PausedCrewAnswer;
}

const storage = new AsyncLocalStorage<RunContext>();
// Until a kickoff enters a context, reading one is skipped entirely.
let entered = false;

/** The context of the kickoff the caller runs in, if any. */
export function currentRun(): RunContext | undefined {
  return entered ? storage.getStore() : undefined;
}

/** Runs `fn` inside `context` (everything it awaits sees it). */
export function runWithContext<T>(context: RunContext, fn: () => T): T {
  entered = true;
  return storage.run(context, fn);
}

/** Runs `fn` in the current context with `changes` applied; without a current context, runs it as it is. */
export function runWithChanges<T>(changes: Partial<RunContext>, fn: () => T): T {
  const current = currentRun();
  return current ? storage.run({ ...current, ...changes }, fn) : fn();
}

/** The signal both of `a` and `b` listen to (either one aborting aborts it). */
export function eitherSignal(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  if (a === undefined || a === b) return b;
  if (b === undefined) return a;
  return AbortSignal.any([a, b]);
}
