import { currentRun, runWithContext } from "./runContext.js";

const crewNames = new WeakMap<object, string>();

/** Notes which crew wrote the pause checkpoint of `pause` (the outermost crew it went through, as its checkpointId). */
export function markCrewPause(pause: object, crewName: string): void {
  crewNames.set(pause, crewName);
}

/** The crew that wrote the pause checkpoint of `pause`, when a crew did. */
export function crewOfPause(pause: object): string | undefined {
  return crewNames.get(pause);
}

/**
 * The answer to a crew's pause, carried to the crew when the run around it (a flow method) runs
 * again: the first kickoff of a crew of that name takes it and resumes from the pause checkpoint.
 */
export class PausedCrewAnswer {
  #taken = false;

  constructor(
    readonly checkpointId: string,
    readonly crewName: string,
    readonly answer: string,
  ) {}

  /** The pause checkpoint and answer, for the first kickoff of crew `crewName`; once. */
  take(crewName: string): { checkpointId: string; answer: string } | undefined {
    if (this.#taken || crewName !== this.crewName) return undefined;
    this.#taken = true;
    return { checkpointId: this.checkpointId, answer: this.answer };
  }
}

/** Runs `fn` so that the crew that paused finds `answer` when it is kicked off again inside it. */
export function withPausedCrewAnswer<T>(answer: PausedCrewAnswer, fn: () => T): T {
  const parent = currentRun();
  return runWithContext({ signal: parent?.signal, sink: parent?.sink, ...parent, pausedCrew: answer }, fn);
}
