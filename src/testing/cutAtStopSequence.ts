/** Text cut where a model would have stopped generating, and the stop sequence that cut it. */
export interface StopCut {
  text: string;
  /** The stop sequence found first in the text, if any. */
  stopSequence: string | undefined;
}

/** Cuts `text` before the earliest occurrence of any stop sequence, as real APIs do (the sequence itself is not returned). */
export function cutAtStopSequence(text: string, stopSequences: readonly string[]): StopCut {
  let cut = -1;
  let stopSequence: string | undefined;
  for (const stop of stopSequences) {
    const at = stop === "" ? -1 : text.indexOf(stop);
    if (at >= 0 && (cut < 0 || at < cut)) {
      cut = at;
      stopSequence = stop;
    }
  }
  return cut < 0 ? { text, stopSequence } : { text: text.slice(0, cut), stopSequence };
}
