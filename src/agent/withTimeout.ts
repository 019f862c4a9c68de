import { AgentTimeoutError } from "./errors.js";
import { prompts } from "./prompts.js";

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

