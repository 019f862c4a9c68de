import type { HumanInputContext } from "../../runtime/humanInput.js";
import { HumanInputPending } from "../../runtime/humanInputPending.js";
import { crewOfPause, PausedCrewAnswer, withPausedCrewAnswer } from "../../runtime/pausedCrew.js";
import { HumanFeedbackPending, type PendingFeedbackContext } from "./types.js";

/** A crew inside a flow method that paused for human input: where its pause checkpoint is and what it asks. */
export interface CrewPauseInfo {
  /** The crew's pause checkpoint (HumanInputPending.checkpointId). */
  checkpointId: string;
  crewName: string;
  /** The question the crew waits on (a task review or a tool approval). */
  request: HumanInputContext;
}

/**
 * A crew's pause (HumanInputPending with its checkpoint written) thrown out of flow method
 * `methodName`, as the flow's own pause: the flow persists its state and resolves with it, and
 * `resume(answer)` runs the method again, its crew continuing from the pause. Undefined for
 * anything else.
 */
export function flowPauseOf(error: unknown, flowClass: string, flowId: string, methodName: string): HumanFeedbackPending | undefined {
  if (!(error instanceof HumanInputPending) || error.checkpointId === undefined) return undefined;
  const crewName = crewOfPause(error);
  if (crewName === undefined) return undefined;
  const request = error.context;
  const context: PendingFeedbackContext = {
    flowId,
    flowClass,
    methodName,
    methodOutput: request.kind === "tool_approval" ? { toolName: request.toolName, toolInput: request.toolInput } : (request.output ?? null),
    message: request.prompt,
    emit: null,
    defaultOutcome: null,
    metadata: {},
    llm: null,
    requestedAt: new Date(),
    crewPause: { checkpointId: error.checkpointId, crewName, request },
  };
  const what = request.kind === "tool_approval" ? `approval of tool "${request.toolName ?? ""}"` : `a review of task "${request.taskName ?? ""}"`;
  return new HumanFeedbackPending({
    context,
    callbackInfo: error.callbackInfo,
    message: `Flow "${flowClass}" (id ${flowId}) paused: crew "${crewName}" in "${methodName}" waits for ${what}. Resume it with (await ${flowClass}.fromPending("${flowId}")).resume(answer).`,
  });
}

const answers = new WeakMap<object, PausedCrewAnswer>();

/** Readies `answer` for the crew paused in `pause`, given to it when `flow`'s next resumed kickoff runs it again. */
export function prepareCrewAnswer(flow: object, pause: CrewPauseInfo, answer: string): void {
  answers.set(flow, new PausedCrewAnswer(pause.checkpointId, pause.crewName, answer));
}

/** Runs `kickoff` with the crew answer `prepareCrewAnswer` readied for `flow`, if any (taken once). */
export function withCrewAnswer<T>(flow: object, kickoff: () => T): T {
  const answer = answers.get(flow);
  if (!answer) return kickoff();
  answers.delete(flow);
  return withPausedCrewAnswer(answer, kickoff);
}
