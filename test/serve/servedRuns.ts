import { performance } from "node:perf_hooks";
import { eventBus } from "../../src/events/index.js";
import { FakeLLM } from "../../src/testing/index.js";
import { echoAnswer } from "./crewFixtures.js";

/** One server-sent event of /stream. */
export interface SentEvent {
  type: string;
  data: Record<string, unknown>;
}

/** The events of a whole /stream response body. */
export function parseStream(text: string): SentEvent[] {
  return text
    .split("\n\n")
    .filter((block) => block.startsWith("event: "))
    .map((block) => ({ type: block.slice(7, block.indexOf("\n")), data: JSON.parse(block.slice(block.indexOf("data: ") + 6)) as Record<string, unknown> }));
}

/**
 * The echo model, except that the second task's call never answers on its own (only its abort ends
 * it): `draftStarted` resolves once the run is inside that call, its first task done and checkpointed.
 */
export function modelStuckOnDraft(): { llm: FakeLLM; draftStarted: Promise<void> } {
  let started!: () => void;
  const draftStarted = new Promise<void>((resolve) => (started = resolve));
  const llm = new FakeLLM((messages) => {
    const answer = echoAnswer(messages);
    if (!answer.startsWith("Draft")) return answer;
    started();
    return new Promise<string>(() => {});
  });
  return { llm, draftStarted };
}

/** Resolves with the time (performance.now()) the next crew kickoff fails, and why. */
export function nextCrewFailure(): Promise<{ at: number; reason: string | undefined }> {
  return new Promise((resolve) => {
    const off = eventBus.on("crew_kickoff_failed", (event) => {
      off();
      resolve({ at: performance.now(), reason: (event as { reason?: string }).reason });
    });
  });
}
