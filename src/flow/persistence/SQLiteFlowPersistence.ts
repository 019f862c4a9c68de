import { LazySQLite } from "../../storage/libsql.js";
import { storagePath } from "../../storage/storageDir.js";
import type { FlowPersistence } from "./FlowPersistence.js";

/** The file name of the flow state database in the storage directory (CrewAI's name). */
export const FLOW_STATES_DB_FILE = "flow_states.db";

// CrewAI's table: one row per save, so a flow's history stays inspectable; loads read the newest.
const SETUP = [
  `CREATE TABLE IF NOT EXISTS flow_states (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    flow_uuid TEXT NOT NULL,
    method_name TEXT NOT NULL,
    timestamp TEXT NOT NULL,
    state_json TEXT NOT NULL
  )`,
  "CREATE INDEX IF NOT EXISTS idx_flow_states_uuid ON flow_states (flow_uuid)",
];

/** The embedded flow persistence: a SQLite file (default `flow_states.db` in the storage directory), opened on first use. */
export class SQLiteFlowPersistence implements FlowPersistence {
  private readonly db: LazySQLite;

  /** `path`: the database file, or ":memory:"; default: `flow_states.db` in the storage directory, resolved on first use. */
  constructor(path?: string) {
    this.db = new LazySQLite(
      () => path ?? storagePath(FLOW_STATES_DB_FILE),
      async (client) => {
        for (const sql of SETUP) await client.execute(sql);
      },
    );
  }

  /** Appends the state as it was after `methodName`; resolves once the row is written. */
  async saveState(flowId: string, methodName: string, state: Record<string, unknown>): Promise<void> {
    const client = await this.db.get();
    await client.execute({
      sql: "INSERT INTO flow_states (flow_uuid, method_name, timestamp, state_json) VALUES (?, ?, ?, ?)",
      args: [flowId, methodName, new Date().toISOString(), JSON.stringify(state)],
    });
  }

  /** The newest state saved for `flowId`. */
  async loadState(flowId: string): Promise<Record<string, unknown> | undefined> {
    const client = await this.db.get();
    const result = await client.execute({
      sql: "SELECT state_json FROM flow_states WHERE flow_uuid = ? ORDER BY id DESC LIMIT 1",
      args: [flowId],
    });
    const json = result.rows[0]?.state_json;
    return typeof json === "string" ? (JSON.parse(json) as Record<string, unknown>) : undefined;
  }

  /** Closes the database; the next call opens it again. */
  async close(): Promise<void> {
    await this.db.close();
  }
}
