import { similarityRatio } from "./similarityRatio.js";

// How close a misspelling must be to a known name for a "did you mean" (difflib's get_close_matches default).
const CLOSE_ENOUGH = 0.6;

/** The known name closest to `name` (ignoring case), if one is close enough to be a likely misspelling. */
export function closestName(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = CLOSE_ENOUGH;
  for (const candidate of known) {
    const score = similarityRatio(name.toLowerCase(), candidate.toLowerCase());
    if (score >= bestScore) [best, bestScore] = [candidate, score];
  }
  return best;
}

/** The message for an unknown key in an options object: a "did you mean" when one is close, else every known key. */
export function unknownOptionMessage(key: string, known: readonly string[], owner: string): string {
  const suggestion = closestName(key, known);
  return suggestion !== undefined
    ? `unknown option "${key}": did you mean "${suggestion}"?`
    : `unknown option "${key}": check the spelling; ${owner} accepts ${known.join(", ")}`;
}
