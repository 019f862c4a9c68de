import { SQLiteDatabase } from "../../storage/SQLiteDatabase.js";
import { storagePath } from "../../storage/storageDir.js";
import { parseStoredJson, StorageError } from "../../storage/StorageError.js";
import type { FlowJournalEntry } from "../../runtime/checkpoint/types.js";
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
  // The finished methods of a run still going (or killed), with their results: a kickoff by id replays them.
  "CREATE TABLE IF NOT EXISTS flow_progress (id INTEGER PRIMARY KEY AUTOINCREMENT, flow_uuid TEXT NOT NULL, entry_json TEXT NOT NULL)",
  "CREATE INDEX IF NOT EXISTS idx_flow_progress_uuid ON flow_progress (flow_uuid)",
];
const INSERT_PROGRESS = "INSERT INTO flow_progress (flow_uuid, entry_json) VALUES (?, ?)";
const PROGRESS = "SELECT entry_json FROM flow_progress WHERE flow_uuid = ? ORDER BY id";
const CLEAR_PROGRESS = "DELETE FROM flow_progress WHERE flow_uuid = ?";
// Rows older than the newest `history` of a flow are superseded: a flow saving at every step of a
// loop keeps a bounded table instead of a full copy of its state per step.
const PRUNE = `DELETE FROM flow_states WHERE flow_uuid = ?1 AND id < (
  SELECT MIN(id) FROM (SELECT id FROM flow_states WHERE flow_uuid = ?1 ORDER BY id DESC LIMIT ?2))`;
const INSERT = "INSERT INTO flow_states (flow_uuid, method_name, timestamp, state_json) VALUES (?, ?, ?, ?)";
const LATEST = "SELECT id, state_json FROM flow_states WHERE flow_uuid = ? ORDER BY id DESC LIMIT 1";

/** The embedded flow persistence: a SQLite file (default `flow_states.db` in the storage directory), opened on first use. */
export class SQLiteFlowPersistence implements FlowPersistence {
  private readonly db: SQLiteDatabase;
  private readonly history: number;

  /**
   * `path`: the database file, or ":memory:"; default: `flow_states.db` in the storage directory, resolved on first use.
   * `history`: how many saved states each flow keeps (default 10; older rows are deleted as newer ones are written).
   */
  constructor(path?: string, options: { history?: number } = {}) {
    this.db = new SQLiteDatabase(() => path ?? storagePath(FLOW_STATES_DB_FILE), SETUP);
    this.history = Math.max(1, options.history ?? 10);
  }

  /** Appends the state as it was after `methodName` (and the finished method, when given) in one write; resolves once written. */
  async saveState(flowId: string, methodName: string, state: Record<string, unknown>, finished?: FlowJournalEntry): Promise<void> {
    const json = JSON.stringify(state);
    const entry = finished === undefined ? undefined : JSON.stringify(finished);
    await this.db.transaction((prepare) => {
      prepare(INSERT).run(flowId, methodName, new Date().toISOString(), json);
      if (entry !== undefined) prepare(INSERT_PROGRESS).run(flowId, entry);
      prepare(PRUNE).run(flowId, this.history);
    });
  }

  /** The finished methods recorded for the unfinished run of `flowId`, in order. */
  async loadProgress(flowId: string): Promise<FlowJournalEntry[]> {
    const rows = (await this.db.read((prepare) => prepare(PROGRESS).all(flowId) as { entry_json: string }[])) ?? [];
    return rows.map((row) => parseStoredJson(row.entry_json, this.db.file, `The progress of flow "${flowId}" (table flow_progress)`, "Delete its rows to run the flow afresh.") as FlowJournalEntry);
  }

  /** Forgets the progress of `flowId` (its run finished). */
  async clearProgress(flowId: string): Promise<void> {
    if (!(await this.db.canRead())) return;
    await this.db.use((prepare) => prepare(CLEAR_PROGRESS).run(flowId));
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
