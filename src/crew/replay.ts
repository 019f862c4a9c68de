import type { NewStoredTaskOutput, StoredTaskOutput, TaskOutputStore } from "../storage/TaskOutputStore.js";
import { TaskOutput, type Task } from "../task/index.js";
import type { KickoffInputs } from "./CrewOptions.js";
import { CrewReplayError } from "./errors.js";

/** Where a replay starts and the inputs of the kickoff it replays. */
export interface ReplayStart {
  /** Position of the first task to run again. */
  startIndex: number;
  /** The inputs the stored kickoff ran with. */
  storedInputs: KickoffInputs;
}

/**
 * Prepares a replay from the task `taskId` of the latest kickoff (CrewAI's replay): finds the task
 * among the stored outputs and gives every earlier task of `tasks` its stored output, which the
 * tasks run again read as context. The stored position is what counts, so a crew built anew, with
 * new task ids (as `crewts replay` builds it), replays the same way.
 */
export async function prepareReplay(store: TaskOutputStore, taskId: string, tasks: readonly Task[]): Promise<ReplayStart> {
  let stored: StoredTaskOutput[];
  try {
    stored = await store.loadAll();
  } finally {
    await store.close();
  }
  const start = stored.find((record) => record.taskId === taskId);
  if (!start) {
    throw new CrewReplayError(
      `Task with id ${taskId} not found in the crew's tasks: it is not among the stored outputs of the latest kickoff ` +
        `(${stored.length} stored). Run the crew first, and pick a task id from \`crewts log-tasks-outputs\`.`,
    );
  }
  if (start.taskIndex >= tasks.length) {
    throw new CrewReplayError(
      `Task with id ${taskId} was task ${start.taskIndex + 1} of the stored kickoff, but this crew has ${tasks.length} tasks. ` +
        "Replay the crew that produced the outputs.",
    );
  }
  for (const record of stored) {
    if (record.taskIndex >= start.taskIndex) continue;
    const task = tasks[record.taskIndex];
    if (task) task.output = storedTaskOutput(record.output, task.description);
  }
  return { startIndex: start.taskIndex, storedInputs: start.inputs };
}

/** Rebuilds a stored TaskOutput (its toJSON() form). */
export function storedTaskOutput(json: Record<string, unknown>, fallbackDescription: string): TaskOutput {
  const text = (key: string): string | undefined => (typeof json[key] === "string" ? json[key] : undefined);
  const name = text("name");
  const expectedOutput = text("expectedOutput");
  return new TaskOutput({
    description: text("description") ?? fallbackDescription,
    ...(name !== undefined ? { name } : {}),
    ...(expectedOutput !== undefined ? { expectedOutput } : {}),
    raw: text("raw") ?? "",
    ...(json.parsed !== undefined && json.parsed !== null ? { parsed: json.parsed } : {}),
    agent: text("agent") ?? "",
  });
}

/** Where kickoffForEach's runs put their task outputs: nowhere, since a batch leaves no kickoff to replay. */
export const DISCARDED_OUTPUTS: TaskOutputStore = {
  add: async () => undefined,
  update: async () => undefined,
  loadAll: async () => [],
  reset: async () => undefined,
  close: async () => undefined,
};

/** How many kickoffs of a crew have started: the count when one started is its number. */
export interface KickoffCount {
  started: number;
}

/**
 * Writes what a kickoff leaves for replay. A store that fails (say the storage directory is read-only,
 * as on many servers) warns once and is then left alone: replay data must never cost a run its results.
 */
export class ReplayRecorder {
  private failed = false;

  /**
   * `kickoff` (its number) and `count` (the crew's): when one crew runs kickoffs side by side, only
   * the one that started last writes, so the store holds one whole kickoff, never a mix.
   */
  constructor(
    private readonly store: TaskOutputStore,
    private readonly kickoff = 0,
    private readonly count?: KickoffCount,
  ) {}

  /** Forgets the previous kickoff. */
  reset(): Promise<void> {
    return this.guard(() => this.store.reset()) ?? Promise.resolve();
  }

  /**
   * Stores one task output (`record` builds it, only when this kickoff writes); undefined when there is
   * nothing to wait for (another kickoff is the latest).
   */
  add(record: () => NewStoredTaskOutput): Promise<void> | undefined {
    return this.guard(() => this.store.add(record()));
  }

  private guard(write: () => Promise<void>): Promise<void> | undefined {
    if (this.failed || (this.count && this.count.started !== this.kickoff)) return undefined;
    let writing: Promise<void>;
    try {
      writing = write();
    } catch (error) {
      writing = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return writing.then(undefined, (error: unknown) => this.fail(error));
  }

  private fail(error: unknown): void {
    this.failed = true;
    process.emitWarning(
      `Task outputs are not stored for replay: ${error instanceof Error ? error.message : String(error)} ` +
        "The crew runs on; set CREWTS_STORAGE_DIR to a writable folder, or pass taskOutputStore, to replay later.",
      { code: "CREWTS_TASK_OUTPUT_STORE" },
    );
  }
}
