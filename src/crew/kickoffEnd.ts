import { eventBus } from "../events/EventBus.js";
import type { UsageMetrics } from "../llm/UsageMetrics.js";
import type { KickoffMemory } from "../memory/MemorySet.js";
import { HumanInputPending } from "../runtime/humanInputPending.js";
import { runAborted } from "../runtime/kickoffRun.js";
import type { TaskOutput } from "../task/index.js";
import type { CrewRunCheckpoints } from "./crewCheckpoints.js";
import { flushMemories } from "./crewMemory.js";
import type { CrewOptions } from "./CrewOptions.js";
import { CrewOutput } from "./CrewOutput.js";
import { hasAfterKickoffHooks, runAfterKickoff } from "./kickoffHooks.js";
import type { KickoffScope } from "./KickoffScope.js";
import type { RunMembers } from "./RunMembers.js";

/** What one kickoff holds from its start to its end. */
export interface KickoffRun {
  members: RunMembers;
  memory: KickoffMemory | undefined;
  scope: KickoffScope;
  source: { crewId: string; crewName: string; kickoffId: string };
  releaseVerbose: (() => Promise<void>) | undefined;
  checkpoints: CrewRunCheckpoints | undefined;
}

/** The crew a kickoff ends for. */
interface KickoffCrew {
  usageMetrics: UsageMetrics;
  readonly name: string;
  readonly options: Readonly<CrewOptions>;
}

/** The kickoff's output once its tasks are done: memory settled, after-kickoff hooks run, crew_kickoff_completed emitted. */
export async function completeKickoff(crew: KickoffCrew, run: KickoffRun, outputs: TaskOutput[]): Promise<CrewOutput> {
  let output: CrewOutput;
  try {
    // The last evaluations' tokens belong to this kickoff's usage.
    if (run.memory) await run.memory.settle();
    const built = CrewOutput.fromTaskOutputs(outputs, run.scope.usage());
    crew.usageMetrics = { ...built.tokenUsage };
    output = hasAfterKickoffHooks(crew.options.afterKickoff) ? await runAfterKickoff(crew.options.afterKickoff, built, crew.name) : built;
    if (eventBus.hasListeners("crew_kickoff_completed")) eventBus.emit("crew_kickoff_completed", { ...run.source, output: output.raw, tokenUsage: { ...output.tokenUsage } });
  } catch (error) {
    return failKickoff(crew, run, error);
  }
  await closeKickoff(run);
  return output;
}

/** A failed kickoff: its usage so far kept, a pause checkpointed, crew_kickoff_failed emitted; rethrows `error`. */
export async function failKickoff(crew: KickoffCrew, run: KickoffRun, error: unknown): Promise<never> {
  try {
    crew.usageMetrics = run.scope.usage();
    if (error instanceof HumanInputPending) await run.checkpoints?.pause(error);
    if (eventBus.hasListeners("crew_kickoff_failed")) {
      eventBus.emit("crew_kickoff_failed", { ...run.source, error: error instanceof Error ? error.message : String(error), ...(runAborted() ? { reason: "aborted" as const } : {}) });
    }
  } finally {
    await closeKickoff(run);
  }
  throw error;
}

/** What every kickoff does at its end: resources taken back, connections closed, memory flushed, members absorbed. */
async function closeKickoff(run: KickoffRun): Promise<void> {
  try {
    run.scope.release();
    const closing = run.scope.closeConnections();
    if (closing) await closing;
    // Memory writes were deferred so tasks did not wait for them; they are all done when kickoff returns.
    if (run.memory) await flushMemories(run.memory);
    if (run.releaseVerbose) await run.releaseVerbose();
  } finally {
    run.members.absorb();
  }
}
