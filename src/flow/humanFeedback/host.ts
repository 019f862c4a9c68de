import type { FlowPersistence } from "../persistence/FlowPersistence.js";
import type { HumanFeedbackResult } from "./types.js";

/** What the feedback code needs from a flow instance that it cannot read from outside. */
export interface FeedbackHost {
  /** The flow's own persistence (its option, or its `@persist` target), where lessons are kept. */
  lessonBackend(): FlowPersistence | undefined;
}

const hosts = new WeakMap<object, FeedbackHost>();
const histories = new WeakMap<object, HumanFeedbackResult[]>();

/** Called by the Flow constructor. */
export function registerFeedbackHost(flow: object, host: FeedbackHost): void {
  hosts.set(flow, host);
}

/** The registered flow `target` is, or inherits from (a concurrent kickoff runs on a view of the flow). */
function ownerOf(target: object): object {
  for (let o: object | null = target; o !== null; o = Object.getPrototypeOf(o) as object | null) if (hosts.has(o)) return o;
  return target;
}

/** The host of a flow (or of a view of it). */
export function feedbackHostOf(flow: object): FeedbackHost | undefined {
  return hosts.get(ownerOf(flow));
}

/** The feedback collected on a flow, oldest first (the live list). */
export function feedbackHistoryOf(flow: object): HumanFeedbackResult[] {
  const owner = ownerOf(flow);
  let list = histories.get(owner);
  if (!list) histories.set(owner, (list = []));
  return list;
}
