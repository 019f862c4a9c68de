/** One task output of the latest kickoff, as stored for replay and `crewts log-tasks-outputs`. */
export interface StoredTaskOutput {
  taskId: string;
  expectedOutput: string;
  /** The task's output as `TaskOutput.toJSON()` gives it. */
  output: Record<string, unknown>;
  /** The task's position in the crew; the key of a record. */
  taskIndex: number;
  /** The inputs the kickoff was run with. */
  inputs: Record<string, unknown>;
  wasReplayed: boolean;
  /** ISO 8601 time the record was written. */
  timestamp: string;
}

/** What `add` takes: a StoredTaskOutput whose flags, inputs and timestamp may be left to their defaults. */
export type NewStoredTaskOutput = Omit<StoredTaskOutput, "inputs" | "wasReplayed" | "timestamp"> &
  Partial<Pick<StoredTaskOutput, "inputs" | "wasReplayed" | "timestamp">>;

/** The fields `update` may change on a stored record. */
export type StoredTaskOutputPatch = Partial<Omit<StoredTaskOutput, "taskIndex">>;

/**
 * Where a crew keeps the task outputs of its latest kickoff (CrewAI's KickoffTaskOutputsSQLiteStorage).
 * Every backend passes the suite in test/storage/taskOutputStoreConformance.ts.
 */
export interface TaskOutputStore {
  /** Stores a record, replacing the one with the same taskIndex. */
  add(record: NewStoredTaskOutput): Promise<void>;
  /** Changes fields of the record at `taskIndex`; warns and does nothing when there is none. */
  update(taskIndex: number, patch: StoredTaskOutputPatch): Promise<void>;
  /** Every record, ordered by taskIndex. */
  loadAll(): Promise<StoredTaskOutput[]>;
  /** Deletes every record. */
  reset(): Promise<void>;
  /** Releases the backend's resources; a later call opens them again. */
  close(): Promise<void>;
}

/** Thrown when a task output store cannot read or write its records. */
export class TaskOutputStoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "TaskOutputStoreError";
  }
}

/** Fills in the defaults of a new record and checks what a store relies on. */
export function completeRecord(record: NewStoredTaskOutput): StoredTaskOutput {
  if (!Number.isInteger(record.taskIndex) || record.taskIndex < 0) {
    throw new TaskOutputStoreError(`taskIndex must be a non-negative integer, got ${String(record.taskIndex)}.`);
  }
  return {
    taskId: record.taskId,
    expectedOutput: record.expectedOutput,
    output: record.output,
    taskIndex: record.taskIndex,
    inputs: record.inputs ?? {},
    wasReplayed: record.wasReplayed ?? false,
    timestamp: record.timestamp ?? new Date().toISOString(),
  };
}

/** Warns that an update found no record, as CrewAI logs it. */
export function warnMissingRecord(taskIndex: number): void {
  process.emitWarning(`No stored task output with taskIndex ${taskIndex}; nothing was updated.`, { code: "CREWTS_TASK_OUTPUT_MISSING" });
}

// Records are JSON in every backend; copying through JSON makes the in-memory store behave the same
// (undefined fields dropped, no shared references with the caller).
const jsonCopy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** A TaskOutputStore that lives as long as the process; for tests and crews that must not touch disk. */
export class InMemoryTaskOutputStore implements TaskOutputStore {
  private readonly records = new Map<number, StoredTaskOutput>();

  async add(record: NewStoredTaskOutput): Promise<void> {
    const complete = completeRecord(record);
    this.records.set(complete.taskIndex, jsonCopy(complete));
  }

  async update(taskIndex: number, patch: StoredTaskOutputPatch): Promise<void> {
    const current = this.records.get(taskIndex);
    if (!current) {
      warnMissingRecord(taskIndex);
      return;
    }
    this.records.set(taskIndex, jsonCopy({ ...current, ...definedFields(patch), taskIndex }));
  }

  async loadAll(): Promise<StoredTaskOutput[]> {
    return [...this.records.values()].sort((a, b) => a.taskIndex - b.taskIndex).map(jsonCopy);
  }

  async reset(): Promise<void> {
    this.records.clear();
  }

  async close(): Promise<void> {
    // Nothing to release: the records stay until reset, like a file on disk.
  }
}

/** The fields of a patch that are set, so `{ inputs: undefined }` does not erase a value. */
export function definedFields(patch: StoredTaskOutputPatch): StoredTaskOutputPatch {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined));
}
