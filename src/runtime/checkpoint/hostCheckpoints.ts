import { AsyncLocalStorage } from "node:async_hooks";
import type { CheckpointConfig } from "./types.js";

/** What a host asks of the kickoff it runs: checkpoints in `lineage`, with `config` unless the crew or flow has its own. */
export interface HostCheckpoints {
  readonly lineage: string;
  readonly config: CheckpointConfig;
}

interface HostRequest {
  readonly checkpoints: HostCheckpoints;
  claimed: boolean;
}

const requests = new AsyncLocalStorage<HostRequest>();
// Until a host asks, kickoffs skip the look-up entirely.
let asked = false;

/**
 * Runs `work` so that the first crew or flow kickoff started inside it writes checkpoints into
 * `checkpoints.lineage`. `crewts serve` and `crewts worker` use it with the kickoff id, so a retried
 * job (or a cancelled run) is resumed from the newest checkpoint of that id.
 */
export function withHostCheckpoints<T>(checkpoints: HostCheckpoints, work: () => Promise<T>): Promise<T> {
  asked = true;
  return requests.run({ checkpoints, claimed: false }, work);
}

/** The host's request, given once: to the outermost kickoff only (crews it starts write their own). */
export function claimHostCheckpoints(): HostCheckpoints | undefined {
  if (!asked) return undefined;
  const request = requests.getStore();
  if (!request || request.claimed) return undefined;
  request.claimed = true;
  return request.checkpoints;
}

/** The host's request without claiming it (`crew.resume` reads its checkpoint where the host keeps them). */
export function peekHostCheckpoints(): HostCheckpoints | undefined {
  if (!asked) return undefined;
  const request = requests.getStore();
  return request && !request.claimed ? request.checkpoints : undefined;
}
