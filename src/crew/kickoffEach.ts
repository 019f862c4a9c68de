import { addToUsageMetrics, emptyUsageMetrics, type UsageMetrics } from "../llm/UsageMetrics.js";
import { runWithChanges } from "../runtime/runContext.js";
import type { KickoffOptions } from "../runtime/KickoffOptions.js";
import type { CrewOutput } from "./CrewOutput.js";
import type { ForEachOptions, KickoffInputs } from "./CrewOptions.js";
import { mapConcurrent } from "./mapConcurrent.js";

/**
 * How many crew copies `kickoffForEach` runs at once unless told otherwise: one, in input order, as
 * CrewAI's kickoff_for_each (a scripted model then answers the runs in order). Pass `concurrency` to
 * run several side by side, as CrewAI's kickoff_for_each_async does.
 */
export const DEFAULT_FOR_EACH_CONCURRENCY = 1;

/** What kickoffEach runs: copies of a crew, each kicked off once. */
interface BatchCrew<T> {
  usageMetrics: UsageMetrics;
  kickoff(inputs: KickoffInputs | undefined, options: KickoffOptions & { stream: false }): Promise<CrewOutput<T>>;
}

/**
 * kickoffForEach's runs: a copy of the crew per inputs (made by `copy` when its turn comes and dropped
 * when its run ends, so only running copies are held in memory), at most `concurrency` at a time,
 * outputs in input order; the crew's usageMetrics become the sum over the runs.
 */
export async function kickoffEach<T>(crew: { usageMetrics: UsageMetrics }, inputsList: KickoffInputs[], options: ForEachOptions, copy: () => BatchCrew<T>): Promise<CrewOutput<T>[]> {
  const concurrency = options.concurrency ?? DEFAULT_FOR_EACH_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`kickoffForEach concurrency must be a positive integer, got ${String(concurrency)}.`);
  }
  const total = (crew.usageMetrics = emptyUsageMetrics());
  return mapConcurrent(inputsList, concurrency, async (inputs, runIndex) => {
    const run = copy();
    try {
      // A streaming batch tags each chunk with the run it came from.
      return await runWithChanges({ runIndex }, () => run.kickoff(inputs, { ...(options.signal ? { signal: options.signal } : {}), stream: false }));
    } finally {
      // A failed run's usage is what it used until it failed. mapConcurrent waits for every run in
      // flight before it rethrows, so each run is counted here, once.
      addToUsageMetrics(total, run.usageMetrics);
    }
  });
}
