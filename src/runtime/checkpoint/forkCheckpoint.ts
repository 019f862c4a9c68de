import { randomUUID } from "node:crypto";
import { checkpointStoreFor, loadCheckpoint, newCheckpointId } from "./checkpointStores.js";
import { CheckpointError } from "./errors.js";
import type { Checkpoint, CheckpointConfig, CheckpointKind } from "./types.js";

/** Options of `Crew.fork` / `Flow.fork`. */
export interface ForkOptions {
  /** The new branch's name (default: "fork-" and a short id). */
  branch?: string;
  /** Where the checkpoint is and the fork is written (default ./.checkpoints). */
  location?: string;
  /** Store provider of the location (default "sqlite"; a JSON file reference is forked into it too). */
  provider?: CheckpointConfig["provider"];
}

/**
 * Copies checkpoint `ref` into a new lineage (parent: `ref`), so a run resumed from the copy writes
 * its own checkpoints beside the original's. Resolves with the new checkpoint; kick off with
 * `{ fromCheckpoint: fork.id }`.
 */
export async function forkCheckpoint(ref: string, kind: CheckpointKind, options: ForkOptions = {}): Promise<Checkpoint> {
  const config: CheckpointConfig = { ...(options.location !== undefined ? { location: options.location } : {}), ...(options.provider !== undefined ? { provider: options.provider } : {}) };
  const store = checkpointStoreFor(config);
  const source = await loadCheckpoint(ref, { ...(options.location !== undefined ? { location: options.location } : {}), ...(typeof options.provider === "object" ? { store } : {}) });
  if (source.kind !== kind) throw new CheckpointError(`Checkpoint "${source.id}" belongs to a ${source.kind} ("${source.name}"): fork it with ${source.kind === "flow" ? "Flow" : source.kind === "crew" ? "Crew" : "Agent"}.fork.`);
  const lineage = randomUUID();
  const fork: Checkpoint = {
    ...source,
    id: newCheckpointId(),
    lineage,
    branch: options.branch ?? `fork-${lineage.slice(0, 8)}`,
    parentId: source.id,
    createdAt: new Date().toISOString(),
    event: "fork",
  };
  await store.save(fork);
  return fork;
}
