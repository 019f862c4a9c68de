import { HookBlockedError } from "../hooks/HookBlockedError.js";
import { LLMError } from "../llm/errors.js";
import { HumanInputPending } from "../runtime/humanInputPending.js";
import { currentRun } from "../runtime/runContext.js";
import { AgentTimeoutError, ContextWindowExceededError } from "./errors.js";
import { prompts } from "./prompts.js";

// What bounds one agent run: its time limit, and which failures are worth running it again for.

/** Races an agent run against its maxExecutionTime: aborts `controller` and rejects with AgentTimeoutError when time is up. */
export async function withTimeout<T>(run: Promise<T>, controller: AbortController, seconds: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new AgentTimeoutError(prompts.timedOut(seconds));
      controller.abort(error);
      reject(error);
    }, seconds * 1000);
  });
  try {
    return await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
    // The loop may still settle after the timeout; its rejection is expected and already reported.
    run.catch(() => undefined);
  }
}

/** Whether `error` is an abort or a timeout of a signal (not worth retrying). */
export function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}

/** Whether a failed run is worth running again (up to maxRetryLimit). */
export function isRetryableRunError(error: unknown): boolean {
  // LLM errors were already retried by the LLM layer; timeouts, aborts and overflowing context
  // would fail the same way again.
  return !(
    error instanceof LLMError ||
    error instanceof AgentTimeoutError ||
    error instanceof ContextWindowExceededError ||
    error instanceof HookBlockedError ||
    // A pause for a human is not a failure: the crew checkpoints it and stops.
    error instanceof HumanInputPending ||
    isAbort(error) ||
    currentRun()?.signal?.aborted === true
  );
}

/** The message of a thrown value, for events. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
