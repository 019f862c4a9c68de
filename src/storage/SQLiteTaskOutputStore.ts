import { SQLiteDatabase, type SQLiteStatement } from "./SQLiteDatabase.js";
import { parseStoredJson, StorageError } from "./StorageError.js";
import { storagePath } from "./storageDir.js";
import {
  completeRecord,
  definedFields,
  TaskOutputStoreError,
  warnMissingRecord,
  type NewStoredTaskOutput,
  type StoredTaskOutput,
  type StoredTaskOutputPatch,
  type TaskOutputStore,
} from "./TaskOutputStore.js";

/** The file name of the task output database in the storage directory (CrewAI's name). */
export const TASK_OUTPUTS_DB_FILE = "latest_kickoff_task_outputs.db";

// CrewAI's table, keyed by task_index instead of task_id: a crew's positions are what replay walks.
const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS latest_kickoff_task_outputs (
  task_index INTEGER PRIMARY KEY,
  task_id TEXT NOT NULL,
  expected_output TEXT NOT NULL,
  output TEXT NOT NULL,
  inputs TEXT NOT NULL,
  was_replayed INTEGER NOT NULL DEFAULT 0,
  timestamp TEXT NOT NULL
)`;

const UPSERT = `INSERT INTO latest_kickoff_task_outputs
  (task_index, task_id, expected_output, output, inputs, was_replayed, timestamp)
  VALUES (?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT(task_index) DO UPDATE SET
    task_id = excluded.task_id, expected_output = excluded.expected_output, output = excluded.output,
    inputs = excluded.inputs, was_replayed = excluded.was_replayed, timestamp = excluded.timestamp`;

// Patch fields and their columns; a fixed list, so no caller text ever reaches the SQL.
const COLUMNS = {
  taskId: "task_id",
  expectedOutput: "expected_output",
  output: "output",
  inputs: "inputs",
  wasReplayed: "was_replayed",
  timestamp: "timestamp",
} as const satisfies Record<keyof StoredTaskOutputPatch, string>;

/**
 * The embedded TaskOutputStore: a SQLite file (default `latest_kickoff_task_outputs.db` in the storage
 * directory), opened on first use.
 */
export class SQLiteTaskOutputStore implements TaskOutputStore {
  private readonly db: SQLiteDatabase;

  /** `path`: the database file, or ":memory:" (gone once closed); default: the storage directory's task output file. */
  constructor(path?: string) {
    // The default is resolved on first use, so CREWTS_STORAGE_DIR set after construction still counts.
    this.db = new SQLiteDatabase(() => path ?? storagePath(TASK_OUTPUTS_DB_FILE), [CREATE_TABLE]);
  }

  async add(record: NewStoredTaskOutput): Promise<void> {
    const r = completeRecord(record);
    await this.run("save a task output", UPSERT, (st) =>
      st.run(r.taskIndex, r.taskId, r.expectedOutput, JSON.stringify(r.output), JSON.stringify(r.inputs), r.wasReplayed ? 1 : 0, r.timestamp),
    );
  }

  async update(taskIndex: number, patch: StoredTaskOutputPatch): Promise<void> {
    const fields = Object.entries(definedFields(patch)) as [keyof StoredTaskOutputPatch, unknown][];
    const known = fields.filter(([key]) => key in COLUMNS);
    if (known.length === 0) {
      // Nothing to change, but the caller still learns when the record does not exist.
      const row = await this.run("read a task output", "SELECT 1 FROM latest_kickoff_task_outputs WHERE task_index = ?", (st) => st.get(taskIndex));
      if (row === undefined) warnMissingRecord(taskIndex);
      return;
    }
    const sets = known.map(([key]) => `${COLUMNS[key]} = ?`).join(", ");
    const args = known.map(([key, value]) => toColumnValue(key, value));
    const result = await this.run("update a task output", `UPDATE latest_kickoff_task_outputs SET ${sets} WHERE task_index = ?`, (st) => st.run(...args, taskIndex));
    if (result.changes === 0) warnMissingRecord(taskIndex);
  }

  async loadAll(): Promise<StoredTaskOutput[]> {
    // A read: a missing file holds no outputs and is not created; an unwritable one is opened read-only.
    const rows = await this.run(
      "load task outputs",
      "SELECT task_index, task_id, expected_output, output, inputs, was_replayed, timestamp FROM latest_kickoff_task_outputs ORDER BY task_index",
      (st) => (st.all() as Row[]).map((row) => fromRow(row, this.db.file)),
      "read",
    );
    return rows ?? [];
  }

  async reset(): Promise<void> {
    await this.run("delete task outputs", "DELETE FROM latest_kickoff_task_outputs", (st) => st.run());
  }

  /** Releases this store's share of the file's connection; the next call opens it again. */
  async close(): Promise<void> {
    await this.db.close();
  }

  private async run<T>(what: string, sql: string, action: (statement: SQLiteStatement) => T): Promise<T>;
  private async run<T>(what: string, sql: string, action: (statement: SQLiteStatement) => T, mode: "read"): Promise<T | undefined>;
  private async run<T>(what: string, sql: string, action: (statement: SQLiteStatement) => T, mode: "write" | "read" = "write"): Promise<T | undefined> {
    try {
      return await (mode === "read" ? this.db.read((prepare) => action(prepare(sql))) : this.db.use((prepare) => action(prepare(sql))));
    } catch (error) {
      if (error instanceof TaskOutputStoreError) throw error;
      // A StorageError names the file and the fix; anything else gets the usual advice.
      if (error instanceof StorageError) throw new TaskOutputStoreError(`Could not ${what} in the task output database: ${error.message}`, { cause: error });
      const reason = error instanceof Error ? error.message : String(error);
      throw new TaskOutputStoreError(
        `Could not ${what} in the task output database: ${reason}. Check that the storage directory (CREWTS_STORAGE_DIR) is writable.`,
        { cause: error },
      );
    }
  }
}

type Row = Record<string, unknown>;

function toColumnValue(key: keyof StoredTaskOutputPatch, value: unknown): string | number {
  if (key === "output" || key === "inputs") return JSON.stringify(value);
  if (key === "wasReplayed") return value ? 1 : 0;
  return String(value);
}

function fromRow(row: Row, file: string): StoredTaskOutput {
  const taskIndex = Number(row.task_index);
  return {
    taskId: text(row.task_id),
    expectedOutput: text(row.expected_output),
    output: parseObject(row.output, file, taskIndex, "output"),
    taskIndex,
    inputs: parseObject(row.inputs, file, taskIndex, "inputs"),
    wasReplayed: Number(row.was_replayed) === 1,
    timestamp: text(row.timestamp),
  };
}

// Text columns come back as strings; anything else means the row was written by something else.
function text(value: unknown): string {
  return typeof value === "string" ? value : value === null || value === undefined ? "" : JSON.stringify(value);
}

function parseObject(value: unknown, file: string, taskIndex: number, column: string): Record<string, unknown> {
  const where = `The ${column} of the stored task output ${taskIndex} (table latest_kickoff_task_outputs)`;
  const fix = "Run the crew again to replace the stored outputs, or delete the file (crewts reset-memories -k).";
  const parsed = typeof value === "string" ? parseStoredJson(value, file, where, fix) : {};
  return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
}
