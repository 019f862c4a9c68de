import {
  completeRecord,
  definedFields,
  warnMissingRecord,
  type NewStoredTaskOutput,
  type StoredTaskOutput,
  type StoredTaskOutputPatch,
  type TaskOutputStore,
} from "../../storage/TaskOutputStore.js";
import { PostgresDatabase, type Migration } from "./PostgresDatabase.js";
import { databaseUrl } from "./PostgresFlowPersistence.js";

const MIGRATIONS: Migration[] = [
  {
    version: 1,
    sql: [
      `CREATE TABLE IF NOT EXISTS crewts_task_outputs (
        scope TEXT NOT NULL,
        task_index INTEGER NOT NULL,
        task_id TEXT NOT NULL,
        expected_output TEXT NOT NULL,
        output JSON NOT NULL,
        inputs JSON NOT NULL,
        was_replayed BOOLEAN NOT NULL,
        saved_at TEXT NOT NULL,
        PRIMARY KEY (scope, task_index)
      )`,
    ],
  },
];

const COLUMNS = "task_id, expected_output, output, inputs, was_replayed, saved_at, task_index";

// The patch fields and the columns they change.
const PATCH_COLUMNS: Record<keyof StoredTaskOutputPatch, string> = {
  taskId: "task_id",
  expectedOutput: "expected_output",
  output: "output",
  inputs: "inputs",
  wasReplayed: "was_replayed",
  timestamp: "saved_at",
};

interface Row {
  task_id: string;
  expected_output: string;
  output: Record<string, unknown>;
  inputs: Record<string, unknown>;
  was_replayed: boolean;
  saved_at: string;
  task_index: number;
}

/** Options of PostgresTaskOutputStore. */
export interface PostgresTaskOutputStoreOptions {
  /** postgres://user:password@host:5432/database; default: CREWTS_DATABASE_URL. */
  url?: string;
  /** Whose latest kickoff the records are (crews sharing a database keep theirs apart); default "default". */
  scope?: string;
}

/** The task outputs of a crew's latest kickoff in Postgres (table crewts_task_outputs, created on first use). */
export class PostgresTaskOutputStore implements TaskOutputStore {
  private readonly db: PostgresDatabase;
  private readonly scope: string;

  constructor(options: PostgresTaskOutputStoreOptions = {}) {
    this.db = new PostgresDatabase(databaseUrl(options.url, "PostgresTaskOutputStore"), "task_outputs", MIGRATIONS);
    this.scope = options.scope ?? "default";
  }

  /** Stores a record, replacing the one with the same taskIndex. */
  async add(record: NewStoredTaskOutput): Promise<void> {
    const r = completeRecord(record);
    await this.db.use((client) =>
      client.query(
        `INSERT INTO crewts_task_outputs (scope, ${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (scope, task_index) DO UPDATE SET task_id = EXCLUDED.task_id, expected_output = EXCLUDED.expected_output,
           output = EXCLUDED.output, inputs = EXCLUDED.inputs, was_replayed = EXCLUDED.was_replayed, saved_at = EXCLUDED.saved_at`,
        [this.scope, r.taskId, r.expectedOutput, JSON.stringify(r.output), JSON.stringify(r.inputs), r.wasReplayed, r.timestamp, r.taskIndex],
      ),
    );
  }

  /** Changes the given fields of the record at `taskIndex`; warns when there is none. */
  async update(taskIndex: number, patch: StoredTaskOutputPatch): Promise<void> {
    const fields = Object.entries(definedFields(patch)).filter(([key]) => key in PATCH_COLUMNS) as [keyof StoredTaskOutputPatch, unknown][];
    const values: unknown[] = [this.scope, taskIndex];
    const sets = fields.map(([key, value]) => {
      values.push(key === "output" || key === "inputs" ? JSON.stringify(value) : value);
      return `${PATCH_COLUMNS[key]} = $${values.length}`;
    });
    // An empty patch still has to find out whether the record exists.
    const sql = sets.length
      ? `UPDATE crewts_task_outputs SET ${sets.join(", ")} WHERE scope = $1 AND task_index = $2`
      : "SELECT 1 FROM crewts_task_outputs WHERE scope = $1 AND task_index = $2";
    const result = await this.db.use((client) => client.query(sql, values));
    if (!result.rowCount) warnMissingRecord(taskIndex);
  }

  /** Every record of this scope, ordered by taskIndex. */
  async loadAll(): Promise<StoredTaskOutput[]> {
    const result = await this.db.use((client) => client.query<Row>(`SELECT ${COLUMNS} FROM crewts_task_outputs WHERE scope = $1 ORDER BY task_index`, [this.scope]));
    return result.rows.map((row) => ({
      taskId: row.task_id,
      expectedOutput: row.expected_output,
      output: row.output,
      taskIndex: row.task_index,
      inputs: row.inputs,
      wasReplayed: row.was_replayed,
      timestamp: row.saved_at,
    }));
  }

  /** Deletes every record of this scope. */
  async reset(): Promise<void> {
    await this.db.use((client) => client.query("DELETE FROM crewts_task_outputs WHERE scope = $1", [this.scope]));
  }

  /** Gives the connection pool back; a later call opens it again. */
  async close(): Promise<void> {
    await this.db.close();
  }
}
