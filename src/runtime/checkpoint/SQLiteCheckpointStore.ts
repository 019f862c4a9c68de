import { checkpointInfoFromRow, type CheckpointInfoRow } from "./checkpointInfoRow.js";
import { SQLiteDatabase, type Prepare } from "../../storage/SQLiteDatabase.js";
import { parseStoredJson } from "../../storage/StorageError.js";
import type { UsageMetrics } from "../../llm/UsageMetrics.js";
import { isFlowProgress, type Checkpoint, type CheckpointFilter, type CheckpointInfo, type CheckpointStore, type FlowJournalEntry } from "./types.js";

/** The file name of the checkpoint database inside a checkpoint directory. */
export const CHECKPOINTS_DB_FILE = "checkpoints.db";

// A flow checkpoint is stored as what changed since the previous one of its lineage: the journal
// entries appended (checkpoint_journal, shared by every checkpoint of the lineage) and the top-level
// state keys whose JSON changed (checkpoint_state, a row per key version). A looping flow thus writes
// one journal row and its changed keys per step, not the whole history again.
const SETUP = [
  `CREATE TABLE IF NOT EXISTS checkpoints (
    id TEXT PRIMARY KEY, lineage TEXT NOT NULL, branch TEXT NOT NULL, parent_id TEXT, created_at TEXT NOT NULL,
    event TEXT NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL, seq INTEGER NOT NULL, journal_len INTEGER,
    usage TEXT NOT NULL, body TEXT NOT NULL
  )`,
  "CREATE INDEX IF NOT EXISTS idx_checkpoints_lineage ON checkpoints (lineage, seq)",
  "CREATE TABLE IF NOT EXISTS checkpoint_lineages (lineage TEXT PRIMARY KEY, inputs TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS checkpoint_journal (lineage TEXT NOT NULL, idx INTEGER NOT NULL, entry TEXT NOT NULL, PRIMARY KEY (lineage, idx))",
  "CREATE TABLE IF NOT EXISTS checkpoint_state (lineage TEXT NOT NULL, key TEXT NOT NULL, seq INTEGER NOT NULL, value TEXT, PRIMARY KEY (lineage, key, seq))",
];
const COLUMNS = "id, lineage, branch, parent_id, created_at, event, kind, name, seq, journal_len, usage, body";
const INSERT = `INSERT INTO checkpoints (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const INSERT_LINEAGE = "INSERT OR IGNORE INTO checkpoint_lineages (lineage, inputs) VALUES (?, ?)";
const INSERT_ENTRY = "INSERT OR REPLACE INTO checkpoint_journal (lineage, idx, entry) VALUES (?, ?, ?)";
const INSERT_KEY = "INSERT OR REPLACE INTO checkpoint_state (lineage, key, seq, value) VALUES (?, ?, ?, ?)";
const HEAD = "SELECT id, seq, journal_len FROM checkpoints WHERE lineage = ? ORDER BY seq DESC LIMIT 1";
const ONE = `SELECT ${COLUMNS} FROM checkpoints WHERE id = ?`;
const INPUTS = "SELECT inputs FROM checkpoint_lineages WHERE lineage = ?";
const JOURNAL = "SELECT entry FROM checkpoint_journal WHERE lineage = ? AND idx < ? ORDER BY idx";
const STATE_AT = `SELECT key, value FROM checkpoint_state s WHERE lineage = ?1 AND seq = (
  SELECT MAX(seq) FROM checkpoint_state t WHERE t.lineage = ?1 AND t.key = s.key AND t.seq <= ?2)`;
const LIST = "SELECT id, lineage, branch, parent_id, created_at, event, kind, name FROM checkpoints ORDER BY created_at, id";
const KEPT_MIN = "SELECT MIN(seq) AS min FROM (SELECT seq FROM checkpoints WHERE lineage = ? ORDER BY seq DESC LIMIT ?)";
const DROP_OLD = "DELETE FROM checkpoints WHERE lineage = ? AND seq < ?";
// A key version is superseded when a newer one exists at or before the oldest checkpoint kept.
const DROP_SUPERSEDED = `DELETE FROM checkpoint_state WHERE lineage = ?1 AND seq < ?2 AND EXISTS (
  SELECT 1 FROM checkpoint_state t WHERE t.lineage = ?1 AND t.key = checkpoint_state.key AND t.seq > checkpoint_state.seq AND t.seq <= ?2)`;
const DROP_LINEAGE = ["checkpoints", "checkpoint_lineages", "checkpoint_journal", "checkpoint_state"].map((t) => `DELETE FROM ${t} WHERE lineage = ?`);

interface Row extends CheckpointInfoRow {
  seq: number;
  journal_len: number | null;
  usage: string;
  body: string;
}

/** What this store last wrote of a lineage, so the next write of the same run stores only what changed. */
interface LineageHead {
  id: string;
  seq: number;
  journalLen: number;
  /** JSON of each state key as last written. */
  keys: Map<string, string>;
}

/** The default checkpoint store: one SQLite file (`checkpoints.db` in the location directory, or a `.db` path). */
export class SQLiteCheckpointStore implements CheckpointStore {
  private readonly db: SQLiteDatabase;
  private readonly heads = new Map<string, LineageHead>();

  /** `path`: the database file (":memory:" for a private in-memory one). */
  constructor(path: string) {
    this.db = new SQLiteDatabase(() => path, SETUP);
  }

  /** The database file. */
  get file(): string {
    return this.db.file;
  }

  /** Writes `cp` in one transaction; a flow checkpoint following the lineage's head stores only its changes. */
  async save(cp: Checkpoint): Promise<string> {
    const known = this.heads.get(cp.lineage);
    const head = known ?? (await this.readHead(cp.lineage));
    await this.db.transaction((prepare) => {
      const next = this.write(prepare, cp, head);
      this.heads.set(cp.lineage, next);
    });
    return cp.id;
  }

  private write(prepare: Prepare, cp: Checkpoint, head: LineageHead | undefined): LineageHead {
    const seq = (head?.seq ?? 0) + 1;
    // A run's inputs do not change: written with its lineage's first checkpoint only.
    if (head === undefined) prepare(INSERT_LINEAGE).run(cp.lineage, JSON.stringify(cp.inputs));
    const progress = cp.progress;
    let journalLen: number | null = null;
    let keys = new Map<string, string>();
    let body: unknown = progress;
    if (isFlowProgress(progress)) {
      // Changes only when this checkpoint continues the head of its lineage; anything else is written whole.
      const follows = head !== undefined && head.id === cp.parentId && progress.journal.length >= head.journalLen;
      const from = follows ? head.journalLen : 0;
      const entry = prepare(INSERT_ENTRY);
      for (let i = from; i < progress.journal.length; i++) entry.run(cp.lineage, i, JSON.stringify(progress.journal[i]));
      journalLen = progress.journal.length;
      const previous = follows ? head.keys : undefined;
      const insertKey = prepare(INSERT_KEY);
      for (const key of Object.keys(progress.state)) {
        const json = JSON.stringify(progress.state[key]) ?? "null";
        keys.set(key, json);
        if (previous?.get(key) !== json) insertKey.run(cp.lineage, key, seq, json);
      }
      // A key gone since the head gets a tombstone (NULL), so loads of later checkpoints leave it out.
      if (previous) for (const key of previous.keys()) if (!keys.has(key)) insertKey.run(cp.lineage, key, seq, null);
      const { state: _state, journal: _journal, ...rest } = progress;
      body = rest;
    } else {
      keys = new Map();
    }
    prepare(INSERT).run(cp.id, cp.lineage, cp.branch, cp.parentId ?? null, cp.createdAt, cp.event, cp.kind, cp.name, seq, journalLen, JSON.stringify(cp.usage), JSON.stringify(body));
    return { id: cp.id, seq, journalLen: journalLen ?? 0, keys };
  }

  /** The newest checkpoint of `lineage` in the file (another process, or an earlier run, may have written it). */
  private async readHead(lineage: string): Promise<LineageHead | undefined> {
    const row = await this.db.read((prepare) => prepare(HEAD).get(lineage) as { id: string; seq: number; journal_len: number | null } | undefined);
    if (!row) return undefined;
    if (row.journal_len === null) return { id: row.id, seq: row.seq, journalLen: 0, keys: new Map() };
    const keys = new Map<string, string>();
    const rows = (await this.db.read((prepare) => prepare(STATE_AT).all(lineage, row.seq) as { key: string; value: string | null }[])) ?? [];
    for (const r of rows) if (r.value !== null) keys.set(r.key, r.value);
    return { id: row.id, seq: row.seq, journalLen: row.journal_len, keys };
  }

  /** The checkpoint `id`, its flow state and journal put back together from the rows of its lineage. */
  async load(id: string): Promise<Checkpoint | undefined> {
    return this.db.read((prepare) => {
      const row = prepare(ONE).get(id) as Row | undefined;
      if (!row) return undefined;
      const where = `Checkpoint "${id}"`;
      const fix = "Delete the file to drop its checkpoints, or resume from another checkpoint.";
      const parse = (text: string) => parseStoredJson(text, this.db.file, where, fix);
      const inputsRow = prepare(INPUTS).get(row.lineage) as { inputs: string } | undefined;
      const inputs = inputsRow ? (parse(inputsRow.inputs) as Record<string, unknown>) : {};
      let progress = parse(row.body) as Checkpoint["progress"];
      if (row.journal_len !== null) {
        const journal = (prepare(JOURNAL).all(row.lineage, row.journal_len) as { entry: string }[]).map((r) => parse(r.entry) as FlowJournalEntry);
        const state: Record<string, unknown> = {};
        for (const r of prepare(STATE_AT).all(row.lineage, row.seq) as { key: string; value: string | null }[]) {
          if (r.value !== null) state[r.key] = parse(r.value);
        }
        progress = { ...(progress), state, journal };
      }
      return { ...checkpointInfoFromRow(row), inputs, progress, usage: parse(row.usage) as UsageMetrics };
    });
  }

  /** Headers of the matching checkpoints, oldest first. */
  async list(filter: CheckpointFilter = {}): Promise<CheckpointInfo[]> {
    const rows = (await this.db.read((prepare) => prepare(LIST).all() as Row[])) ?? [];
    return rows.map(checkpointInfoFromRow).filter((cp) => matches(cp, filter));
  }

  /** Deletes all but the newest `keep` checkpoints of `lineage`, and the state rows only they needed. */
  async prune(lineage: string, keep: number): Promise<void> {
    if (!(await this.db.canRead())) return;
    await this.db.transaction((prepare) => {
      if (keep <= 0) {
        for (const sql of DROP_LINEAGE) prepare(sql).run(lineage);
        this.heads.delete(lineage);
        return;
      }
      const min = (prepare(KEPT_MIN).get(lineage, keep) as { min: number | null } | undefined)?.min;
      if (min === null || min === undefined) return;
      prepare(DROP_OLD).run(lineage, min);
      prepare(DROP_SUPERSEDED).run(lineage, min);
    });
  }

  /** Releases the file's connection share; the next call opens it again. */
  async close(): Promise<void> {
    await this.db.close();
  }
}


/** Whether `cp` passes every field of `filter`. */
export function matches(cp: CheckpointInfo, filter: CheckpointFilter): boolean {
  return (
    (filter.lineage === undefined || cp.lineage === filter.lineage) &&
    (filter.branch === undefined || cp.branch === filter.branch) &&
    (filter.kind === undefined || cp.kind === filter.kind) &&
    (filter.name === undefined || cp.name === filter.name)
  );
}
