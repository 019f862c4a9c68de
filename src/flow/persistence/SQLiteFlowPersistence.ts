import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type Database from "libsql";
import { IN_MEMORY_DB } from "../../storage/libsql.js";
import { storagePath } from "../../storage/storageDir.js";
import type { FlowPersistence } from "./FlowPersistence.js";

/** The file name of the flow state database in the storage directory (CrewAI's name). */
export const FLOW_STATES_DB_FILE = "flow_states.db";

// CrewAI's table: one row per save, so a flow's history stays inspectable; loads read the newest.
const SETUP = [
  // A save is a commit per method. In WAL mode with synchronous=NORMAL a commit is an append without
  // fsync, still safe when the process is killed (only an OS crash may lose the newest rows).
  "PRAGMA journal_mode = WAL",
  "PRAGMA synchronous = NORMAL",
  `CREATE TABLE IF NOT EXISTS flow_states (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    flow_uuid TEXT NOT NULL,
    method_name TEXT NOT NULL,
    timestamp TEXT NOT NULL,
    state_json TEXT NOT NULL
  )`,
  "CREATE INDEX IF NOT EXISTS idx_flow_states_uuid ON flow_states (flow_uuid)",
];

interface OpenDatabase {
  db: Database.Database;
  insert: Database.Statement;
  latest: Database.Statement;
}

/**
 * The embedded flow persistence: a SQLite file (default `flow_states.db` in the storage directory),
 * opened on first use. It talks to libsql's statement API directly: a save sits on the path between
 * two flow steps, and a statement prepared once runs in about half the time of the async client,
 * which prepares it again on every call and does the same synchronous write underneath.
 */
export class SQLiteFlowPersistence implements FlowPersistence {
  private opening: Promise<OpenDatabase> | undefined;

  /** `path`: the database file, or ":memory:"; default: `flow_states.db` in the storage directory, resolved on first use. */
  constructor(private readonly path?: string) {}

  /** Appends the state as it was after `methodName`; resolves once the row is written. */
  async saveState(flowId: string, methodName: string, state: Record<string, unknown>): Promise<void> {
    const { insert } = await this.open();
    insert.run(flowId, methodName, new Date().toISOString(), JSON.stringify(state));
  }

  /** The newest state saved for `flowId`. */
  async loadState(flowId: string): Promise<Record<string, unknown> | undefined> {
    const { latest } = await this.open();
    // libsql's statements ignore pluck(): the row comes back as an object.
    const json = (latest.get(flowId) as { state_json?: unknown } | undefined)?.state_json;
    return typeof json === "string" ? (JSON.parse(json) as Record<string, unknown>) : undefined;
  }

  /** Closes the database; the next call opens it again. */
  async close(): Promise<void> {
    const opening = this.opening;
    this.opening = undefined;
    const open = await opening?.catch(() => undefined);
    open?.db.close();
  }

  private open(): Promise<OpenDatabase> {
    this.opening ??= openDatabase(this.path ?? storagePath(FLOW_STATES_DB_FILE)).catch((error: unknown) => {
      // A failed open must not stick: the next call tries again (e.g. once the folder is writable).
      this.opening = undefined;
      throw error;
    });
    return this.opening;
  }
}

async function openDatabase(path: string): Promise<OpenDatabase> {
  // Loaded on first use: the native module is slow to import and most programs never persist a flow.
  const { default: Database } = await import("libsql");
  let file = path;
  if (path !== IN_MEMORY_DB) {
    file = resolve(path);
    mkdirSync(dirname(file), { recursive: true });
  }
  const db = new Database(file, { timeout: 5000 });
  try {
    for (const sql of SETUP) db.exec(sql);
    const insert = db.prepare("INSERT INTO flow_states (flow_uuid, method_name, timestamp, state_json) VALUES (?, ?, ?, ?)");
    const latest = db.prepare("SELECT state_json FROM flow_states WHERE flow_uuid = ? ORDER BY id DESC LIMIT 1");
    return { db, insert, latest };
  } catch (error) {
    db.close();
    throw error;
  }
}
