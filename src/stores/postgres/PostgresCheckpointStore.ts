import type { UsageMetrics } from "../../llm/UsageMetrics.js";
import type { Checkpoint, CheckpointFilter, CheckpointInfo, CheckpointStore } from "../../runtime/checkpoint/types.js";
import { checkpointInfoFromRow, type CheckpointInfoRow } from "../../runtime/checkpoint/checkpointInfoRow.js";
import { PostgresDatabase, type Migration } from "./PostgresDatabase.js";
import { databaseUrl } from "./PostgresFlowPersistence.js";
import { checkpointRowParts, FlowFold, type FlowHead } from "../../runtime/checkpoint/flowDelta.js";
import { isFlowProgress } from "../../runtime/checkpoint/types.js";
import type { PoolClient } from "pg";

// One row per checkpoint. `seq` orders a lineage's checkpoints for prune and for finding its newest;
// `json` (not jsonb) keeps a flow state's keys in the order the flow wrote them. Crew and agent rows
// are whole. Since version 2 a flow row holds, like the SQLite store's, a `delta` (runtime/checkpoint/
// flowDelta.ts): what changed since the previous row of its lineage, or, on a base row (one with
// `inputs`), the whole state and journal; a load folds the rows from the nearest base on. Version 1
// rows (whole progress, no delta) still load, and serve as bases.
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
  {
    version: 2,
    sql: ["ALTER TABLE crewts_checkpoints ADD COLUMN IF NOT EXISTS delta TEXT", "ALTER TABLE crewts_checkpoints ALTER COLUMN inputs DROP NOT NULL"],
  },
];

const INFO_COLUMNS = "id, lineage, branch, parent_id, created_at, event, kind, name";

interface Row extends CheckpointInfoRow {
  seq: string;
  inputs: Record<string, unknown> | null;
  progress: Checkpoint["progress"];
  usage: UsageMetrics;
  delta: string | null;
}

/** What this store last wrote of a lineage, so the next write of the same run stores only what changed. */
interface LineageHead {
  id: string;
  /** BIGSERIAL, as pg returns it (a string). */
  seq: string;
  flow: FlowHead | undefined;
}

const BASE = "SELECT seq, inputs, progress, delta FROM crewts_checkpoints WHERE lineage = $1 AND seq <= $2 AND inputs IS NOT NULL ORDER BY seq DESC LIMIT 1";
const DELTAS = "SELECT delta FROM crewts_checkpoints WHERE lineage = $1 AND seq > $2 AND seq <= $3 ORDER BY seq";

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
  private readonly heads = new Map<string, LineageHead>();

  constructor(options: PostgresCheckpointStoreOptions = {}) {
    this.db = new PostgresDatabase(databaseUrl(options.url, "PostgresCheckpointStore"), "checkpoints", MIGRATIONS);
  }

  /** Writes `cp` (durable once the insert commits) and resolves with its id; a flow checkpoint continuing its lineage's head stores only its changes. */
  async save(cp: Checkpoint): Promise<string> {
    const next = await this.db.use(async (client) => {
      const head = this.heads.get(cp.lineage) ?? (await this.readHead(client, cp.lineage));
      const { delta, body, flow, flowBase } = checkpointRowParts(cp, head);
      // Crew and agent rows restate their inputs (they are small); a flow row only when it is a base.
      const base = flowBase ?? true;
      const inserted = await client.query<{ seq: string }>(
        `INSERT INTO crewts_checkpoints (${INFO_COLUMNS}, inputs, progress, usage, delta) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING seq`,
        [cp.id, cp.lineage, cp.branch, cp.parentId ?? null, cp.createdAt, cp.event, cp.kind, cp.name, base ? JSON.stringify(cp.inputs) : null, JSON.stringify(body), JSON.stringify(cp.usage), delta],
      );
      return { id: cp.id, seq: inserted.rows[0]!.seq, flow };
    });
    this.heads.set(cp.lineage, next);
    return cp.id;
  }

  /** The newest checkpoint of `lineage` (another worker, or an earlier run, may have written it). */
  private async readHead(client: PoolClient, lineage: string): Promise<LineageHead | undefined> {
    const result = await client.query<{ id: string; seq: string; flow: boolean }>(
      "SELECT id, seq, (delta IS NOT NULL OR progress::jsonb ? 'journal') AS flow FROM crewts_checkpoints WHERE lineage = $1 ORDER BY seq DESC LIMIT 1",
      [lineage],
    );
    const row = result.rows[0];
    if (!row) return undefined;
    return { id: row.id, seq: row.seq, flow: row.flow ? (await this.fold(client, lineage, row.seq))?.fold.head() : undefined };
  }

  /** The flow state and journal of `lineage` at `seq`, folded from the nearest base, and that base's inputs. */
  private async fold(client: PoolClient, lineage: string, seq: string): Promise<{ fold: FlowFold; inputs: Record<string, unknown> } | undefined> {
    const base = (await client.query<{ seq: string; inputs: Record<string, unknown>; progress: Checkpoint["progress"]; delta: string | null }>(BASE, [lineage, seq])).rows[0];
    if (!base) return undefined;
    const fold = new FlowFold();
    const parse = (text: string): unknown => JSON.parse(text);
    if (base.delta !== null) fold.apply(base.delta, parse);
    else if (isFlowProgress(base.progress)) fold.apply(JSON.stringify({ j: base.progress.journal, s: base.progress.state }), parse);
    for (const r of (await client.query<{ delta: string | null }>(DELTAS, [lineage, base.seq, seq])).rows) if (r.delta !== null) fold.apply(r.delta, parse);
    return { fold, inputs: base.inputs };
  }

  /** The checkpoint `id`, a flow's state and journal put back together from the rows of its lineage, or undefined. */
  async load(id: string): Promise<Checkpoint | undefined> {
    return this.db.use(async (client) => {
      const row = (await client.query<Row>(`SELECT ${INFO_COLUMNS}, seq, inputs, progress, usage, delta FROM crewts_checkpoints WHERE id = $1`, [id])).rows[0];
      if (!row) return undefined;
      let progress = row.progress;
      let inputs = row.inputs ?? {};
      if (row.delta !== null) {
        const folded = await this.fold(client, row.lineage, row.seq);
        if (folded) {
          inputs = folded.inputs;
          progress = { state: folded.fold.state, journal: folded.fold.journal, ...row.progress };
        }
      }
      return { ...checkpointInfoFromRow(row), inputs, progress, usage: row.usage };
    });
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

  /** Deletes all but the newest `keep` checkpoints of `lineage`; the oldest one kept becomes a base (state and journal folded into it). */
  async prune(lineage: string, keep: number): Promise<void> {
    await this.db.use(async (client) => {
      if (keep <= 0) {
        await client.query("DELETE FROM crewts_checkpoints WHERE lineage = $1", [lineage]);
        this.heads.delete(lineage);
        return;
      }
      await client.query("BEGIN");
      try {
        const kept = await client.query<{ seq: string; inputs: unknown; delta: string | null }>(
          "SELECT seq, inputs, delta FROM crewts_checkpoints WHERE lineage = $1 ORDER BY seq DESC LIMIT 1 OFFSET $2",
          [lineage, keep - 1],
        );
        const oldest = kept.rows[0];
        if (oldest) {
          if (oldest.inputs === null && oldest.delta !== null) {
            const folded = await this.fold(client, lineage, oldest.seq);
            if (folded) await client.query("UPDATE crewts_checkpoints SET delta = $1, inputs = $2 WHERE seq = $3", [folded.fold.baseText(), JSON.stringify(folded.inputs), oldest.seq]);
          }
          await client.query("DELETE FROM crewts_checkpoints WHERE lineage = $1 AND seq < $2", [lineage, oldest.seq]);
        }
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      }
    });
  }

  /** Gives the connection pool back; a later call opens it again. */
  async close(): Promise<void> {
    await this.db.close();
  }
}

