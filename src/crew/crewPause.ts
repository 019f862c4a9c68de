import { hostPausesForInput } from "../runtime/hostPauses.js";
import { hasHumanInputProvider } from "../runtime/humanInput.js";
import { HumanInputError } from "../runtime/humanInput.js";
import { PreparedHumanAnswer } from "../runtime/humanInputPending.js";
import { currentRun, runWithContext } from "../runtime/runContext.js";
import { loadCheckpoint } from "../runtime/checkpoint/checkpointStores.js";
import { peekHostCheckpoints } from "../runtime/checkpoint/hostCheckpoints.js";
import { isCrewProgress, type CheckpointConfig } from "../runtime/checkpoint/types.js";

// A crew that may pause keeps its finished tasks to checkpoint them on a pause, and writes nothing else.
const PAUSE_ONLY: CheckpointConfig = { onEvents: [] };

/**
 * The checkpoint settings of a kickoff: the crew's own, the defaults when resuming, or (when a human
 * input provider is set or a host pauses for input, so a task or tool approval may pause the run) records kept for a pause only.
 */
export function kickoffCheckpointConfig(own: CheckpointConfig | undefined, resuming: boolean): CheckpointConfig | undefined {
  return own ?? (resuming ? {} : hasHumanInputProvider() || hostPausesForInput() ? PAUSE_ONLY : undefined);
}

/** Continues a crew paused by HumanInputPending: `answer` goes to the review or approval it waited on. */
export async function resumePausedCrew<T>(checkpointId: string, answer: string, config: CheckpointConfig | undefined, kickoff: () => Promise<T>): Promise<T> {
  // A served crew (no checkpoint option of its own) paused into the host's checkpoints.
  const location = (config ?? peekHostCheckpoints()?.config)?.location;
  const cp = await loadCheckpoint(checkpointId, location !== undefined ? { location } : {});
  const pending = isCrewProgress(cp.progress) ? cp.progress.pendingHumanInput : undefined;
  if (!pending) {
    throw new HumanInputError(`Checkpoint "${cp.id}" was not written by a crew paused for human input; resume it with crew.kickoff(inputs, { fromCheckpoint: "${cp.id}" }).`);
  }
  if (typeof answer !== "string") throw new TypeError("crew.resume(checkpointId, answer) needs the human's answer as a string.");
  const parent = currentRun();
  return runWithContext({ signal: parent?.signal, sink: parent?.sink, ...parent, humanAnswer: new PreparedHumanAnswer(pending, answer) }, kickoff);
}
