import { AsyncLocalStorage } from "node:async_hooks";

const pausing = new AsyncLocalStorage<true>();
// Until a host asks, the question is answered without a look-up.
let asked = false;

/**
 * Runs `work` so that a question for a human with no one to answer it (no provider set, no terminal:
 * a task review, a tool approval, a `@humanFeedback` method) pauses the run instead of failing it.
 * `crewts serve` and `crewts worker` run kickoffs this way: the pause is reported as PAUSED and
 * answered with POST /resume.
 */
export function withHostPauses<T>(work: () => Promise<T>): Promise<T> {
  asked = true;
  return pausing.run(true, work);
}

/** Whether the caller runs inside withHostPauses. */
export function hostPausesForInput(): boolean {
  return asked && pausing.getStore() === true;
}
