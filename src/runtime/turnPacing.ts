// Thousands of runs in one process (a server taking a burst, `Promise.all(inputs.map(...))`) each do a
// little synchronous work at their start and again each time their model answers. Started in one loop,
// or answered in one timer phase, they would all do it in one turn of the event loop and hold it for the
// whole batch: timers, sockets and health checks would wait that long. So after TURN_BUDGET such steps in
// one turn, further ones wait for a later turn, TURN_BUDGET at a time. A handful of runs never waits.

// The timers module's own setImmediate: fake timers in the user's tests replace the global one, and a turn
// that never ended would leave every later step waiting.
import { setImmediate } from "node:timers";

/** Steps (a kickoff's start, a run going on after its model answered) done in one turn of the event loop before the next ones wait. */
export const TURN_BUDGET = 256;

let stepsThisTurn = 0;
let turnEndScheduled = false;
const waiting: (() => void)[] = [];

function endTurn(): void {
  turnEndScheduled = false;
  // The next batch of waiting steps goes on now, in this turn; any left over wait for the next one.
  const release = waiting.length > TURN_BUDGET ? waiting.splice(0, TURN_BUDGET) : waiting.splice(0);
  stepsThisTurn = release.length;
  if (stepsThisTurn > 0) scheduleTurnEnd();
  for (const goOn of release) goOn();
}

function scheduleTurnEnd(): void {
  if (turnEndScheduled) return;
  turnEndScheduled = true;
  setImmediate(endTurn);
}

/**
 * Undefined when the caller may go on now (the usual case); else a promise that resolves in a later
 * turn of the event loop, when its step's turn comes. Steps go on in the order they asked.
 */
export function waitForTurn(): Promise<void> | undefined {
  if (stepsThisTurn < TURN_BUDGET && waiting.length === 0) {
    if (stepsThisTurn++ === 0) scheduleTurnEnd();
    return undefined;
  }
  return new Promise<void>((resolve) => {
    waiting.push(resolve);
    scheduleTurnEnd();
  });
}
