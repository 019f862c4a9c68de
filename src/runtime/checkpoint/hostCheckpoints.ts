import { AsyncLocalStorage } from "node:async_hooks";
import type { CheckpointLineage } from "./CheckpointRecorder.js";

interface HostRequest {
  readonly lineage: string;
  claimed: boolean;
}

const requests = new AsyncLocalStorage<HostRequest>();
// Until a host asks, kickoffs skip the look-up entirely.
let asked = false;

/**
 * Runs `work` so that the first crew or flow kickoff started inside it writes checkpoints (with the
 * default store when it has no `checkpoint` option) into `lineage`. `crewts worker` uses it with the
 * kickoff id, so a retried job finds the newest checkpoint of its run by that id.
 */
export function withHostCheckpoints<T>(lineage: string, work: () => Promise<T>): Promise<T> {
  asked = true;
  return requests.run({ lineage, claimed: false }, work);
}

/** The lineage a host asked for, given once: to the outermost kickoff only (crews inside it write their own). */
export function claimHostCheckpoints(): CheckpointLineage | undefined {
  if (!asked) return undefined;
  const request = requests.getStore();
  if (!request || request.claimed) return undefined;
  request.claimed = true;
  return { lineage: request.lineage, branch: "main" };
}
