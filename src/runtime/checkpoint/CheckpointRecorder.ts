import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { eventBus } from "../../events/EventBus.js";
import type { CrewtsEvent } from "../../events/types.js";
import type { UsageMetrics } from "../../llm/UsageMetrics.js";
import { checkpointStoreFor, newCheckpointId } from "./checkpointStores.js";
import { CheckpointError } from "./errors.js";
import type { Checkpoint, CheckpointConfig, CheckpointKind, CheckpointStore } from "./types.js";

/** Where a run's checkpoints continue: the lineage, branch and parent of the next one. */
export interface CheckpointLineage {
  lineage: string;
  branch: string;
  parentId?: string;
}

/** What a recorder needs from its run. */
export interface CheckpointSource {
  kind: CheckpointKind;
  name: string;
  inputs: Record<string, unknown>;
  /** The run's progress and usage now. */
  snapshot(): { progress: Checkpoint["progress"]; usage: UsageMetrics };
  /** Whether a bus event belongs to this run (for onEvents beyond the run's own completion events). */
  owns(event: CrewtsEvent): boolean;
}

const current = new AsyncLocalStorage<CheckpointRecorder>();

/** Writes the checkpoints of one run: on its configured events, best-effort, pruned to maxCheckpoints. */
export class CheckpointRecorder {
  readonly store: CheckpointStore;
  readonly onEvents: ReadonlySet<string>;
  private readonly all: boolean;
  private position: CheckpointLineage;
  private chain: Promise<unknown> = Promise.resolve();
  private off: (() => void) | undefined;

  constructor(
    private readonly config: CheckpointConfig,
    private readonly source: CheckpointSource,
    defaultEvents: readonly string[],
    from?: CheckpointLineage,
  ) {
    this.store = checkpointStoreFor(config);
    const events = config.onEvents ?? defaultEvents;
    this.all = events.includes("*");
    this.onEvents = new Set(events);
    this.position = from ?? { lineage: randomUUID(), branch: "main" };
  }

  /** The id of the newest checkpoint written (or resumed from). */
  get lastId(): string | undefined {
    return this.position.parentId;
  }

  /** Where the run's checkpoints go: its lineage and branch. */
  get lineage(): CheckpointLineage {
    return this.position;
  }

  /** Whether `event` writes a checkpoint. */
  wants(event: string): boolean {
    return this.all || this.onEvents.has(event);
  }

  /**
   * Runs `body` with this recorder as the current one (for checkpointNow), writing on configured bus
   * events other than `inline` (which the run writes itself, awaited, at the right step).
   */
  async around<T>(inline: readonly string[], body: () => Promise<T>): Promise<T> {
    const others = this.all ? ["*"] : [...this.onEvents].filter((e) => !inline.includes(e));
    if (others.length > 0) {
      this.off = eventBus.onAny((event) => {
        if (inline.includes(event.type) || event.type.startsWith("checkpoint_")) return;
        if ((this.all || this.onEvents.has(event.type)) && this.source.owns(event)) void this.write(event.type, false);
      });
    }
    try {
      return await current.run(this, body);
    } finally {
      this.off?.();
      this.off = undefined;
      await this.chain;
    }
  }

  /** Writes a checkpoint for `event`; automatic writes never throw (checkpoint_failed instead), explicit ones do. */
  write(event: string, explicit: boolean): Promise<string | undefined> {
    const { progress, usage } = this.source.snapshot();
    const next = this.chain.then(() => this.save(event, progress, usage));
    this.chain = next.catch(() => undefined);
    if (explicit) return next;
    return next.catch((error: unknown) => {
      if (eventBus.hasListeners("checkpoint_failed")) {
        eventBus.emit("checkpoint_failed", { kind: this.source.kind, name: this.source.name, event, lineage: this.position.lineage, error: error instanceof Error ? error.message : String(error) });
      }
      return undefined;
    });
  }

  private async save(event: string, progress: Checkpoint["progress"], usage: UsageMetrics): Promise<string> {
    const cp: Checkpoint = {
      id: newCheckpointId(),
      ...this.position,
      createdAt: new Date().toISOString(),
      event,
      kind: this.source.kind,
      name: this.source.name,
      inputs: this.source.inputs,
      progress,
      usage,
    };
    const id = await this.store.save(cp);
    this.position = { ...this.position, parentId: id };
    if (this.config.maxCheckpoints !== undefined) await this.store.prune(this.position.lineage, this.config.maxCheckpoints);
    if (eventBus.hasListeners("checkpoint_written")) {
      eventBus.emit("checkpoint_written", { checkpointId: id, lineage: cp.lineage, branch: cp.branch, kind: cp.kind, name: cp.name, event });
    }
    return id;
  }
}

/**
 * Writes a checkpoint of the run this is called in (a task's tool, a flow method) and resolves with its
 * id; unlike automatic writes it rethrows a failure. Throws when the run has no checkpoint option.
 */
export async function checkpointNow(): Promise<string> {
  const recorder = current.getStore();
  if (!recorder) throw new CheckpointError("checkpointNow() was called outside a run that writes checkpoints. Give the crew, flow or agent `checkpoint: true` (or a CheckpointConfig) and call it from inside its kickoff.");
  return (await recorder.write("manual", true))!;
}

/** The lineage a run resumed from `cp` writes to: the same one when `cp` is its newest checkpoint, else a new one. */
export async function lineageAfter(cp: Checkpoint, store: CheckpointStore): Promise<CheckpointLineage> {
  const line = await store.list({ lineage: cp.lineage });
  if (line.at(-1)?.id === cp.id || line.length === 0) return { lineage: cp.lineage, branch: cp.branch, parentId: cp.id };
  return { lineage: randomUUID(), branch: cp.branch, parentId: cp.id };
}

/** Normalizes the `checkpoint` option: undefined/false off, true the defaults. */
export function checkpointConfigOf(option: boolean | CheckpointConfig | undefined): CheckpointConfig | undefined {
  if (option === undefined || option === false) return undefined;
  return option === true ? {} : option;
}
