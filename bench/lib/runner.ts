// The alternating runner: every contender of a scenario does the same work in the same process,
// taking turns sample by sample (the order rotates each round), after a warm-up.
import { summarize, type Summary } from "./stats.js";

/** One framework doing a scenario's work. */
export interface Contender {
  /** "crewts", "LangGraph.js", "KaibanJS", or a baseline. */
  name: string;
  /** One run of the work; the runner times it. */
  run?: () => Promise<void>;
  /** Why this contender cannot run here (it is then reported as unavailable, not measured). */
  unavailable?: string;
  /** After the last sample: a description of any difference from the work asked for (e.g. wrong LLM call count). */
  verify?: () => string | undefined;
}

/** How much to measure. */
export interface CompareOptions {
  /** Untimed runs of each contender before sampling. */
  warmup: number;
  /** Timed samples of each contender. */
  samples: number;
  /** A sample repeats the run until it lasts at least this long (short runs are otherwise timer noise). */
  minSampleMs?: number;
  /** The reported numbers are per run divided by this (e.g. 1000 steps of a chain). */
  divisor?: number;
}

/** What was measured for one contender: milliseconds per run (divided by `divisor`). */
export interface Measured {
  name: string;
  samples: number[];
  summary?: Summary;
  /** Runs per timed sample. */
  runsPerSample: number;
  unavailable?: string;
  /** Set when the contender did not do the same work (see Contender.verify). */
  mismatch?: string;
}

const gc = (globalThis as { gc?: () => void }).gc;

/** Measures every available contender, alternating between them, and summarizes their samples. */
export async function compare(contenders: readonly Contender[], options: CompareOptions): Promise<Measured[]> {
  const divisor = options.divisor ?? 1;
  const minSampleMs = options.minSampleMs ?? 0;
  const results: Measured[] = contenders.map((c) => ({ name: c.name, samples: [], runsPerSample: 1, ...(c.unavailable ? { unavailable: c.unavailable } : {}) }));
  const live = contenders.map((c, i) => ({ c, r: results[i]! })).filter(({ c }) => !c.unavailable && c.run);

  // Warm-up, which also sizes the samples: a fast run is repeated so each sample lasts minSampleMs.
  for (const { c, r } of live) {
    for (let k = 0; k < options.warmup; k++) await c.run!();
    if (minSampleMs <= 0) continue;
    // One more run, warm now, sizes the samples.
    const t0 = performance.now();
    await c.run!();
    const once = performance.now() - t0;
    r.runsPerSample = Math.max(1, Math.min(10_000, Math.ceil(minSampleMs / Math.max(once, 0.001))));
  }

  for (let round = 0; round < options.samples; round++) {
    // Rotate who goes first, so drift (heat, GC debt, caches) is spread over all contenders.
    for (let k = 0; k < live.length; k++) {
      const { c, r } = live[(round + k) % live.length]!;
      gc?.();
      const t0 = performance.now();
      for (let i = 0; i < r.runsPerSample; i++) await c.run!();
      r.samples.push((performance.now() - t0) / r.runsPerSample / divisor);
    }
  }

  for (const { c, r } of live) {
    r.summary = summarize(r.samples);
    const mismatch = c.verify?.();
    if (mismatch) r.mismatch = mismatch;
  }
  return results;
}
