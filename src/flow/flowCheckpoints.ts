import type { CrewtsEvent } from "../events/types.js";
import { emptyUsageMetrics } from "../llm/UsageMetrics.js";
import { CheckpointRecorder, lineageAfter, type CheckpointLineage } from "../runtime/checkpoint/CheckpointRecorder.js";
import { checkpointStoreFor, loadCheckpoint } from "../runtime/checkpoint/checkpointStores.js";
import { CheckpointError } from "../runtime/checkpoint/errors.js";
import { copyFlowState, flowProgressSnapshot } from "../runtime/checkpoint/flowSnapshot.js";
import { isFlowProgress, type Checkpoint, type CheckpointConfig, type FlowJournalEntry } from "../runtime/checkpoint/types.js";
import type { FlowRun, FlowRunDurability } from "./FlowRun.js";

/** Flows write a checkpoint after each method unless told otherwise. */
export const FLOW_CHECKPOINT_EVENTS = ["method_execution_finished"];

/** Where a flow resumes: the checkpoint, its state and journal, and the lineage it continues. */
export interface FlowResume {
  checkpoint: Checkpoint;
  state: Record<string, unknown>;
  journal: readonly FlowJournalEntry[];
  lineage: CheckpointLineage;
}

/** Loads a flow checkpoint written by a flow named `flowName`. */
export async function loadFlowResume(ref: string, config: CheckpointConfig | undefined, flowName: string): Promise<FlowResume> {
  const location = config?.location !== undefined ? { location: config.location } : {};
  const store = checkpointStoreFor(config ?? {});
  const cp = await loadCheckpoint(ref, { ...location, ...(typeof config?.provider === "object" ? { store } : {}) });
  if (cp.kind !== "flow" || !isFlowProgress(cp.progress)) {
    throw new CheckpointError(`Checkpoint "${cp.id}" belongs to a ${cp.kind} ("${cp.name}"), not a flow: resume it with the ${cp.kind}'s kickoff.`);
  }
  if (cp.name !== flowName) throw new CheckpointError(`Checkpoint "${cp.id}" was written by flow "${cp.name}", not "${flowName}": resume it with an instance of that flow.`);
  return { checkpoint: cp, state: cp.progress.state, journal: cp.progress.journal, lineage: await lineageAfter(cp, store) };
}

/** The checkpoints of one flow kickoff: a write after each method (or on the configured events). */
export function flowCheckpointing(
  config: CheckpointConfig,
  flow: { name: string; state: () => Record<string, unknown>; inputs: Record<string, unknown> },
  resume: FlowResume | undefined,
  run: () => FlowRun | undefined,
  /** Where a run that does not resume writes (a host's lineage); default a new one. */
  lineage?: CheckpointLineage,
): { recorder: CheckpointRecorder; durability: FlowRunDurability } {
  const recorder = new CheckpointRecorder(
    config,
    {
      kind: "flow",
      name: flow.name,
      inputs: flow.inputs,
      snapshot: () => {
        const current = run();
        return {
          progress: flowProgressSnapshot(copyFlowState(flow.state()), current ? current.journal : [], { inFlight: current ? [...current.inFlight.keys()] : [], waiting: current?.waiting() ?? [] }),
          usage: resume?.checkpoint.usage ?? emptyUsageMetrics(),
        };
      },
      owns: (event: CrewtsEvent) => (event as { flowId?: string }).flowId === String(flow.state().id),
    },
    FLOW_CHECKPOINT_EVENTS,
    resume?.lineage ?? lineage,
  );
  const inline = recorder.wants("method_execution_finished");
  return {
    recorder,
    durability: {
      ...(resume ? { replay: resume.journal } : {}),
      ...(inline ? { methodFinished: () => recorder.write("method_execution_finished", false) } : {}),
    },
  };
}
