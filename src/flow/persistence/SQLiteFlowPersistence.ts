import { SQLiteDatabase } from "../../storage/SQLiteDatabase.js";
import { storagePath } from "../../storage/storageDir.js";
import { parseStoredJson, StorageError } from "../../storage/StorageError.js";
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
const INSERT = "INSERT INTO flow_states (flow_uuid, method_name, timestamp, state_json) VALUES (?, ?, ?, ?)";
const LATEST = "SELECT id, state_json FROM flow_states WHERE flow_uuid = ? ORDER BY id DESC LIMIT 1";

/** The embedded flow persistence: a SQLite file (default `flow_states.db` in the storage directory), opened on first use. */
export class SQLiteFlowPersistence implements FlowPersistence {
  private readonly db: SQLiteDatabase;

  /** `path`: the database file, or ":memory:"; default: `flow_states.db` in the storage directory, resolved on first use. */
  constructor(path?: string) {
    this.db = new SQLiteDatabase(() => path ?? storagePath(FLOW_STATES_DB_FILE), SETUP);
  }

  /** Appends the state as it was after `methodName`; resolves once the row is written. */
  async saveState(flowId: string, methodName: string, state: Record<string, unknown>): Promise<void> {
    const json = JSON.stringify(state);
    await this.db.use((prepare) => prepare(INSERT).run(flowId, methodName, new Date().toISOString(), json));
  }

  /**
   * The newest state saved for `flowId`. Needs no write access: a missing file holds no state (and is
   * not created), a file this process may not write is opened read-only.
   */
  async loadState(flowId: string): Promise<Record<string, unknown> | undefined> {
    const row = await this.db.read((prepare) => prepare(LATEST).get(flowId) as { id?: unknown; state_json?: unknown } | undefined);
    if (typeof row?.state_json !== "string") return undefined;
    const where = `The saved state of flow "${flowId}" (table flow_states, row id ${String(row.id)})`;
    const fix = "Delete that row or the file to start the flow afresh, or kick off with another id.";
    const state = parseStoredJson(row.state_json, this.db.file, where, fix);
    if (state === null || typeof state !== "object" || Array.isArray(state)) {
      throw new StorageError("bad-json", this.db.file, `${where} in ${this.db.file} is not a JSON object. ${fix}`);
    }
    return state as Record<string, unknown>;
  }

  /** Releases this persistence's share of the file's connection; the next call opens it again. */
  async close(): Promise<void> {
    await this.db.close();
  }
}
