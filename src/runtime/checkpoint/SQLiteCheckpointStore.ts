import { checkpointInfoFromRow, type CheckpointInfoRow } from "./checkpointInfoRow.js";
import { SQLiteDatabase, type Prepare } from "../../storage/SQLiteDatabase.js";
import { parseStoredJson, StorageError } from "../../storage/StorageError.js";
import type { UsageMetrics } from "../../llm/UsageMetrics.js";
import { checkpointRowParts, FlowFold, type FlowHead } from "./flowDelta.js";
import type { Checkpoint, CheckpointFilter, CheckpointInfo, CheckpointStore } from "./types.js";

/** The file name of the checkpoint database inside a checkpoint directory. */
export const CHECKPOINTS_DB_FILE = "checkpoints.db";

// One row per checkpoint, written by one INSERT (its own commit: no BEGIN/COMMIT round trips). A flow
// checkpoint's `delta` holds what changed since the previous checkpoint of its lineage (journal entries
// appended, state keys whose JSON changed, keys removed; see flowDelta.ts), so a looping flow writes its
// change per step, not the whole history again. A row with `inputs` is a base: it restates the run in
// full (the lineage's first row, a write that does not continue the lineage's newest row, the oldest
// row kept after a prune), and a load folds the rows from the nearest base on.
//
// A row's rowid is its lineage's number in the file times 2^32 plus its seq, so the rows of a lineage
// are one rowid range in order: the table itself serves every lineage query, and a write touches one
// b-tree (the table) where a (lineage, seq) index and an id index made it three, each costing a commit
// about 10 µs. A lookup by id scans the table; it happens once per resume, fork or `crewts checkpoint
// info` (tens of ms at 100,000 rows). Ids are unique by construction (time, a counter and a random part
// per process). Lineage numbers come from checkpoint_lineages, one row per run.
const SETUP = [
  "CREATE TABLE IF NOT EXISTS checkpoint_lineages (n INTEGER PRIMARY KEY, lineage TEXT NOT NULL UNIQUE)",
  `CREATE TABLE IF NOT EXISTS checkpoint_log (
    id TEXT NOT NULL, lineage TEXT NOT NULL, seq INTEGER NOT NULL, branch TEXT NOT NULL, parent_id TEXT,
    created_at TEXT NOT NULL, event TEXT NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,
    usage TEXT NOT NULL, body TEXT NOT NULL, delta TEXT, inputs TEXT
  )`,
];
const INFO = "id, lineage, branch, parent_id, created_at, event, kind, name";
const INSERT = `INSERT INTO checkpoint_log (rowid, ${INFO}, seq, usage, body, delta, inputs) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const NUMBER = "SELECT n FROM checkpoint_lineages WHERE lineage = ?";
const ADD_LINEAGE = "INSERT INTO checkpoint_lineages (lineage) VALUES (?) ON CONFLICT (lineage) DO UPDATE SET lineage = excluded.lineage RETURNING n";
// Ranges are [first rowid, last rowid] of a lineage, or of part of it.
const HEAD = "SELECT id, seq, delta IS NOT NULL AS flow FROM checkpoint_log WHERE rowid BETWEEN ? AND ? ORDER BY rowid DESC LIMIT 1";
const ONE = `SELECT ${INFO}, seq, usage, body, delta, inputs FROM checkpoint_log WHERE id = ?`;
const BASE = "SELECT seq, inputs FROM checkpoint_log WHERE rowid BETWEEN ? AND ? AND inputs IS NOT NULL ORDER BY rowid DESC LIMIT 1";
const DELTAS = "SELECT delta FROM checkpoint_log WHERE rowid BETWEEN ? AND ? ORDER BY rowid";
const LIST = `SELECT ${INFO} FROM checkpoint_log ORDER BY created_at, id`;
const KEPT_MIN = "SELECT MIN(seq) AS min FROM (SELECT seq FROM checkpoint_log WHERE rowid BETWEEN ? AND ? ORDER BY rowid DESC LIMIT ?)";
const AT = "SELECT delta IS NOT NULL AS flow, inputs IS NOT NULL AS based FROM checkpoint_log WHERE rowid = ?";
// A crew or agent row keeps its delta NULL: only the inputs move into it.
const REBASE = "UPDATE checkpoint_log SET delta = coalesce(?, delta), inputs = ? WHERE rowid = ?";
const DROP_RANGE = "DELETE FROM checkpoint_log WHERE rowid BETWEEN ? AND ?";

// seq fills the low 32 bits of a rowid; lineage numbers stay below 2^21 so rowids are exact JavaScript numbers.
const SEQ_SPAN = 2 ** 32;
const MAX_LINEAGES = 2 ** 21 - 1;

/** The rowid of `seq` in lineage number `n`. */
function rowidOf(n: number, seq: number): number {
  return n * SEQ_SPAN + seq;
}

/** The last rowid lineage number `n` may use. */
function lastRowidOf(n: number): number {
  return n * SEQ_SPAN + (SEQ_SPAN - 1);
}

interface Row extends CheckpointInfoRow {
  seq: number;
  usage: string;
  body: string;
  delta: string | null;
  inputs: string | null;
}

/** What this store last wrote of a lineage, so the next write of the same run stores only what changed. */
interface LineageHead {
  /** The lineage's number in the file (the high part of its rows' rowids). */
  n: number;
  id: string;
  seq: number;
  /** The flow's journal length and state keys as written; undefined for crew and agent checkpoints. */
  flow: FlowHead | undefined;
  /** The oldest seq the lineage is known to keep (prune skips its query while fewer rows exist). */
  floor: number | undefined;
}

/** The default checkpoint store: one SQLite file (`checkpoints.db` in the location directory, or a `.db` path). */
export class SQLiteCheckpointStore implements CheckpointStore {
  private readonly db: SQLiteDatabase;
  private readonly heads = new Map<string, LineageHead>();
  // Lineage numbers known to this store (a lineage keeps its number for the life of the file).
  private readonly numbers = new Map<string, number>();

  /** `path`: the database file (":memory:" for a private in-memory one). */
  constructor(path: string) {
    this.db = new SQLiteDatabase(() => path, SETUP, { backgroundCheckpoints: true });
  }

  /** The database file. */
  get file(): string {
    return this.db.file;
  }

  /** Writes `cp` as one row (one commit); a flow checkpoint continuing the lineage's head stores only its changes. */
  async save(cp: Checkpoint): Promise<string> {
    const head = this.heads.get(cp.lineage) ?? (await this.readHead(cp.lineage));
    const next = await this.db.use((prepare) => this.write(prepare, cp, head, head?.n ?? this.addLineage(prepare, cp.lineage)));
    this.heads.set(cp.lineage, next);
    return cp.id;
  }

  private write(prepare: Prepare, cp: Checkpoint, head: LineageHead | undefined, n: number): LineageHead {
    const seq = (head?.seq ?? 0) + 1;
    const { delta, body, flow, flowBase } = checkpointRowParts(cp, head);
    const base = flowBase ?? head === undefined;
    // A run's inputs do not change: written with the base rows only.
    const inputs = base ? JSON.stringify(cp.inputs) : null;
    if (seq >= SEQ_SPAN) throw new StorageError("failed", this.db.file, `Checkpoint lineage "${cp.lineage}" in ${this.db.file} holds 2^32 checkpoints, the most one run can write. Prune it with maxCheckpoints.`);
    prepare(INSERT).run(rowidOf(n, seq), cp.id, cp.lineage, cp.branch, cp.parentId ?? null, cp.createdAt, cp.event, cp.kind, cp.name, seq, JSON.stringify(cp.usage), JSON.stringify(body), delta, inputs);
    return { n, id: cp.id, seq, flow, floor: head === undefined ? seq : head.floor };
  }

  /** The number of `lineage` in the file, given it on first use. */
  private addLineage(prepare: Prepare, lineage: string): number {
    const n = (prepare(ADD_LINEAGE).get(lineage) as { n: number }).n;
    if (n > MAX_LINEAGES) {
      throw new StorageError("failed", this.db.file, `${this.db.file} holds checkpoints of ${MAX_LINEAGES} runs, the most one file can. Give new runs another checkpoint location, or delete the file.`);
    }
    this.numbers.set(lineage, n);
    return n;
  }

  /** The number of `lineage` in the file, or undefined when it has no checkpoint there. */
  private numberOf(prepare: Prepare, lineage: string): number | undefined {
    const known = this.numbers.get(lineage);
    if (known !== undefined) return known;
    const n = (prepare(NUMBER).get(lineage) as { n: number } | undefined)?.n;
    if (n !== undefined) this.numbers.set(lineage, n);
    return n;
  }

  /** The newest checkpoint of `lineage` in the file (another process, or an earlier run, may have written it). */
  private async readHead(lineage: string): Promise<LineageHead | undefined> {
    return this.db.read((prepare) => {
      const n = this.numberOf(prepare, lineage);
      if (n === undefined) return undefined;
      const row = prepare(HEAD).get(rowidOf(n, 0), lastRowidOf(n)) as { id: string; seq: number; flow: number } | undefined;
      if (!row) return undefined;
      const flow = row.flow ? this.fold(prepare, n, lineage, row.seq)?.fold.head() : undefined;
      return { n, id: row.id, seq: row.seq, flow, floor: undefined };
    });
  }

  /** The flow state and journal of `lineage` at `seq`, folded from the nearest base, and the inputs of that base. */
  private fold(prepare: Prepare, n: number, lineage: string, seq: number): { fold: FlowFold; inputs: string | null } | undefined {
    const base = prepare(BASE).get(rowidOf(n, 0), rowidOf(n, seq)) as { seq: number; inputs: string } | undefined;
    if (!base) return undefined;
    const fold = new FlowFold();
    const parse = (text: string) => parseStoredJson(text, this.db.file, `Checkpoint lineage "${lineage}"`, FIX);
    for (const r of prepare(DELTAS).all(rowidOf(n, base.seq), rowidOf(n, seq)) as { delta: string | null }[]) if (r.delta !== null) fold.apply(r.delta, parse);
    return { fold, inputs: base.inputs };
  }

  /** The checkpoint `id`, its flow state and journal put back together from the rows of its lineage. */
  async load(id: string): Promise<Checkpoint | undefined> {
    return this.db.read((prepare) => {
      const row = prepare(ONE).get(id) as Row | undefined;
      if (!row) return undefined;
      const parse = (text: string) => parseStoredJson(text, this.db.file, `Checkpoint "${id}"`, FIX);
      let progress = parse(row.body) as Checkpoint["progress"];
      let inputs = row.inputs;
      const n = this.numberOf(prepare, row.lineage);
      if (n === undefined) throw new StorageError("failed", this.db.file, `Checkpoint "${id}" in ${this.db.file} belongs to lineage "${row.lineage}", which the file does not list. ${FIX}`);
      if (row.delta !== null) {
        const folded = this.fold(prepare, n, row.lineage, row.seq);
        if (folded) {
          inputs = folded.inputs;
          progress = { state: folded.fold.state, journal: folded.fold.journal, ...progress };
        }
      } else if (inputs === null) {
        inputs = (prepare(BASE).get(rowidOf(n, 0), rowidOf(n, row.seq)) as { inputs: string } | undefined)?.inputs ?? null;
      }
      return { ...checkpointInfoFromRow(row), inputs: inputs === null ? {} : (parse(inputs) as Record<string, unknown>), progress, usage: parse(row.usage) as UsageMetrics };
    });
  }

  /** Headers of the matching checkpoints, oldest first. */
  async list(filter: CheckpointFilter = {}): Promise<CheckpointInfo[]> {
    const rows = (await this.db.read((prepare) => prepare(LIST).all() as Row[])) ?? [];
    return rows.map(checkpointInfoFromRow).filter((cp) => matches(cp, filter));
  }

  /**
   * Deletes all but the newest `keep` checkpoints of `lineage`; the oldest one kept becomes a base (the
   * state and journal folded into it), so the rows before it go. Costs no query while the lineage is
   * known to hold no more than `keep` rows.
   */
  async prune(lineage: string, keep: number): Promise<void> {
    const head = this.heads.get(lineage);
    if (keep > 0 && head?.floor !== undefined && head.seq - head.floor < keep) return;
    if (!(await this.db.canRead())) return;
    await this.db.transaction((prepare) => {
      const n = this.numberOf(prepare, lineage);
      if (n === undefined) return;
      if (keep <= 0) {
        prepare(DROP_RANGE).run(rowidOf(n, 0), lastRowidOf(n));
        this.heads.delete(lineage);
        return;
      }
      const min = (prepare(KEPT_MIN).get(rowidOf(n, 0), lastRowidOf(n), keep) as { min: number | null } | undefined)?.min;
      if (min === null || min === undefined) return;
      const oldest = prepare(AT).get(rowidOf(n, min)) as { flow: number; based: number };
      if (!oldest.based) {
        const folded = this.fold(prepare, n, lineage, min);
        const inputs = folded ? folded.inputs : (prepare(BASE).get(rowidOf(n, 0), rowidOf(n, min)) as { inputs: string } | undefined)?.inputs;
        prepare(REBASE).run(oldest.flow && folded ? folded.fold.baseText() : null, inputs ?? "{}", rowidOf(n, min));
      }
      if (min > 0) prepare(DROP_RANGE).run(rowidOf(n, 0), rowidOf(n, min - 1));
      const now = this.heads.get(lineage);
      if (now) now.floor = min;
    });
  }

  /** Releases the file's connection share; the next call opens it again. */
  async close(): Promise<void> {
    await this.db.close();
  }
}

const FIX = "Delete the file to drop its checkpoints, or resume from another checkpoint.";

/** Whether `cp` passes every field of `filter`. */
export function matches(cp: CheckpointInfo, filter: CheckpointFilter): boolean {
  return (
    (filter.lineage === undefined || cp.lineage === filter.lineage) &&
    (filter.branch === undefined || cp.branch === filter.branch) &&
    (filter.kind === undefined || cp.kind === filter.kind) &&
    (filter.name === undefined || cp.name === filter.name)
  );
}
