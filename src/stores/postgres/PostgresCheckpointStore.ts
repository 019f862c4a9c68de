import type { UsageMetrics } from "../../llm/UsageMetrics.js";
import type { Checkpoint, CheckpointFilter, CheckpointInfo, CheckpointStore } from "../../runtime/checkpoint/types.js";
import { checkpointInfoFromRow, type CheckpointInfoRow } from "../../runtime/checkpoint/checkpointInfoRow.js";
import { PostgresDatabase, type Migration } from "./PostgresDatabase.js";
import { databaseUrl } from "./PostgresFlowPersistence.js";

// One row per checkpoint, whole (inputs, progress and usage as JSON): any worker on the database can
// load any checkpoint with one query. `seq` orders a lineage's checkpoints for prune and for
// finding its newest; `json` (not jsonb) keeps a flow state's keys in the order the flow wrote them.
const MIGRATIONS: Migration[] = [
  {
    version: 1,
    sql: [
      `CREATE TABLE IF NOT EXISTS crewts_checkpoints (
        seq BIGSERIAL PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        lineage TEXT NOT NULL,
        branch TEXT NOT NULL,
        parent_id TEXT,
        created_at TEXT NOT NULL,
        event TEXT NOT NULL,
        kind TEXT NOT NULL,
        name TEXT NOT NULL,
        inputs JSON NOT NULL,
        progress JSON NOT NULL,
        usage JSON NOT NULL
      )`,
      "CREATE INDEX IF NOT EXISTS crewts_checkpoints_lineage ON crewts_checkpoints (lineage, seq)",
    ],
  },
];

const INFO_COLUMNS = "id, lineage, branch, parent_id, created_at, event, kind, name";

interface Row extends CheckpointInfoRow {
  inputs: Record<string, unknown>;
  progress: Checkpoint["progress"];
  usage: UsageMetrics;
}

/** Options of PostgresCheckpointStore. */
export interface PostgresCheckpointStoreOptions {
  /** postgres://user:password@host:5432/database; default: CREWTS_DATABASE_URL. */
  url?: string;
}

/**
 * Checkpoints in Postgres (table crewts_checkpoints, created on first use), shared by every process on
 * the database: a run whose worker dies resumes on another from its newest checkpoint.
 */
export class PostgresCheckpointStore implements CheckpointStore {
  private readonly db: PostgresDatabase;

  constructor(options: PostgresCheckpointStoreOptions = {}) {
    this.db = new PostgresDatabase(databaseUrl(options.url, "PostgresCheckpointStore"), "checkpoints", MIGRATIONS);
  }

  /** Writes `cp` (durable once the insert commits) and resolves with its id. */
  async save(cp: Checkpoint): Promise<string> {
    await this.db.use((client) =>
      client.query(
        `INSERT INTO crewts_checkpoints (${INFO_COLUMNS}, inputs, progress, usage) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [cp.id, cp.lineage, cp.branch, cp.parentId ?? null, cp.createdAt, cp.event, cp.kind, cp.name, JSON.stringify(cp.inputs), JSON.stringify(cp.progress), JSON.stringify(cp.usage)],
      ),
    );
    return cp.id;
  }

  /** The checkpoint `id`, or undefined. */
  async load(id: string): Promise<Checkpoint | undefined> {
    const result = await this.db.use((client) => client.query<Row>(`SELECT ${INFO_COLUMNS}, inputs, progress, usage FROM crewts_checkpoints WHERE id = $1`, [id]));
    const row = result.rows[0];
    return row && { ...checkpointInfoFromRow(row), inputs: row.inputs, progress: row.progress, usage: row.usage };
  }

  /** Headers of the matching checkpoints, oldest first. */
  async list(filter: CheckpointFilter = {}): Promise<CheckpointInfo[]> {
    const where: string[] = [];
    const values: string[] = [];
    for (const [field, column] of [["lineage", "lineage"], ["branch", "branch"], ["kind", "kind"], ["name", "name"]] as const) {
      const value = filter[field];
      if (value === undefined) continue;
      values.push(value);
      where.push(`${column} = $${values.length}`);
    }
    const sql = `SELECT ${INFO_COLUMNS} FROM crewts_checkpoints ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY created_at, id`;
    const result = await this.db.use((client) => client.query<CheckpointInfoRow>(sql, values));
    return result.rows.map(checkpointInfoFromRow);
  }

  /** Deletes all but the newest `keep` checkpoints of `lineage`. */
  async prune(lineage: string, keep: number): Promise<void> {
    await this.db.use((client) =>
      keep <= 0
        ? client.query("DELETE FROM crewts_checkpoints WHERE lineage = $1", [lineage])
        : client.query(
            "DELETE FROM crewts_checkpoints WHERE lineage = $1 AND seq < (SELECT MIN(seq) FROM (SELECT seq FROM crewts_checkpoints WHERE lineage = $1 ORDER BY seq DESC LIMIT $2) AS kept)",
            [lineage, keep],
          ),
    );
  }

  /** Gives the connection pool back; a later call opens it again. */
  async close(): Promise<void> {
    await this.db.close();
  }
}

