import { accessSync, constants, mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import type Database from "libsql";
import { cannotOpen, toStorageError } from "./StorageError.js";
import { backgroundCheckpointsWork, releaseCheckpointer, requestCheckpoint } from "./walCheckpointer.js";

/** The path that opens a private, unnamed in-memory SQLite database. */
export const IN_MEMORY_DB = ":memory:";

/** A prepared statement of libsql's synchronous API. */
export type SQLiteStatement = Database.Statement;

/** Prepares (or finds the prepared) statement for `sql` on an open connection. */
export type Prepare = (sql: string) => SQLiteStatement;

/** "write" creates the folder and the file when missing; "read" opens only a file that exists. */
export type OpenMode = "write" | "read";

// Every write of ours is its own commit (a task output, a flow step). In WAL mode with
// synchronous=NORMAL a commit is an append without fsync, still safe when the process is killed
// (only an OS crash may lose the newest rows).
const PRAGMAS = ["PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL"];
// With checkpoints on the worker (walCheckpointer), one is asked for after this many uses of the
// connection: about as often as SQLite's own every 1,000 pages, for writes of a few pages each.
const USES_PER_CHECKPOINT = 250;
// Wait up to 5 s for another process's write lock instead of failing at once.
const OPTIONS = { timeout: 5000 };

type DatabaseClass = typeof Database;
let libsql: DatabaseClass | undefined;
// Loaded on first use: the native module is slow to import and many programs never open a database.
const loadLibsql = async (): Promise<DatabaseClass> => (libsql ??= (await import("libsql")).default);

/**
 * One SQLite file, open or not, shared by every store on it: the connection, its prepared statements,
 * which setups (CREATE TABLE lists) ran on it, and the queue that runs its transactions one at a time.
 * Statements and setups belong to one open connection and are dropped when it closes.
 */
export class SQLiteConnection {
  db: Database.Database | undefined;
  /** Opened read-only because the file or its folder may not be written. */
  readOnly = false;
  /** Stores holding a share; the last one to release it closes the connection. */
  shares = 0;
  /** Set on every use, cleared by the idle sweep: a connection unused between two sweeps is closed. */
  used = false;
  /** Counts opens, so what was learned about one open connection is not trusted on the next. */
  generation = 0;
  /** Transactions committed on this connection since it was opened. */
  commits = 0;
  // Whether the worker checkpoints this connection's log (see walCheckpointer), and uses since it last did.
  private background = false;
  private uses = 0;
  /** Transactions rolled back on this connection since it was opened. */
  rollbacks = 0;
  /**
   * Values derived from the file's content (see SQLiteDatabase.derived), kept while stores share the file,
   * across closes: each checks it is still current when used, and may note its state before a close (beforeClose).
   */
  readonly derived = new Map<string, unknown>();
  // The file opened (device and inode), to notice when it was deleted or replaced since.
  private opened: { dev: number; ino: number } | undefined;
  private running: Promise<void> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly statements = new Map<string, SQLiteStatement>();
  private readonly setups = new Set<string>();
  readonly prepare: Prepare = (sql) => {
    let prepared = this.statements.get(sql);
    if (prepared === undefined) {
      prepared = (this.db as Database.Database).prepare(sql);
      this.statements.set(sql, prepared);
    }
    return prepared;
  };

  constructor(
    readonly path: string,
    private readonly onOpen: () => void = () => undefined,
  ) {}

  /** Whether a transaction is open (the idle sweep never closes it then). */
  get inTransaction(): boolean {
    return this.running !== undefined;
  }

  /** Opens the file; false when `mode` is "read" and there is no file. Throws a StorageError naming the file. */
  async open(mode: OpenMode): Promise<boolean> {
    const Database = await loadLibsql();
    if (this.db) return true;
    const opened = openFile(Database, this.path, mode);
    if (!opened) return false;
    this.db = opened.db;
    this.readOnly = opened.readOnly;
    this.opened = fileIdentity(this.path);
    this.commits = 0;
    this.rollbacks = 0;
    this.generation++;
    this.onOpen();
    return true;
  }

  /** Runs `setup` once per open connection (skipped when read-only: nothing may be created). */
  ensureSetup(key: string, setup: readonly string[]): void {
    if (this.setups.has(key)) return;
    if (!this.readOnly) for (const sql of setup) (this.db as Database.Database).exec(sql);
    this.setups.add(key);
  }

  /**
   * Moves this open connection's log checkpoints to the worker thread, so no write waits on the fsyncs of
   * one (a store writing at every step of a run asks for it). Not for read-only or in-memory databases.
   */
  checkpointInBackground(): void {
    if (this.background || this.readOnly || this.path === IN_MEMORY_DB || !this.db || !backgroundCheckpointsWork()) return;
    this.db.exec("PRAGMA wal_autocheckpoint = 0");
    this.background = true;
  }

  /** Counts a use; with background checkpoints, asks the worker for one every USES_PER_CHECKPOINT uses. */
  countUse(): void {
    if (!this.background || ++this.uses < USES_PER_CHECKPOINT) return;
    this.uses = 0;
    if (backgroundCheckpointsWork()) return requestCheckpoint(this.path);
    // The worker failed: the connection checkpoints itself again.
    this.db?.exec("PRAGMA wal_autocheckpoint = 1000");
    this.background = false;
  }

  /** Resolves once no transaction is open. */
  async outsideTransaction(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Runs `task` once every task queued before it has finished. */
  serialize<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Resolves once every queued task has finished. */
  async settled(): Promise<void> {
    let seen: Promise<unknown> | undefined;
    while (seen !== this.queue) await (seen = this.queue);
  }

  /** BEGIN IMMEDIATE, the body, then COMMIT, or ROLLBACK when anything failed. Call inside serialize(). */
  async transaction<T>(body: (prepare: Prepare) => T | Promise<T>): Promise<T> {
    this.prepare("BEGIN IMMEDIATE").run();
    let finished!: () => void;
    this.running = new Promise<void>((resolve) => (finished = resolve));
    try {
      const returned = body(this.prepare);
      // A synchronous body commits in the same step as BEGIN: nothing else can run inside its transaction.
      const result = isPromise(returned) ? await returned : returned;
      this.prepare("COMMIT").run();
      this.commits++;
      return result;
    } catch (error) {
      this.rollbacks++;
      try {
        if (this.db?.inTransaction) this.prepare("ROLLBACK").run();
      } catch {
        // The failure that led here is the one to report; SQLite rolls back on its own when it cannot.
      }
      throw error;
    } finally {
      this.running = undefined;
      this.used = true;
      finished();
    }
  }

  /**
   * Whether the open connection still reads and writes the file at its path. A file deleted or replaced
   * since (crewts reset-memories, a user's rm) would keep receiving writes no one ever reads again.
   */
  isCurrent(): boolean {
    if (this.path === IN_MEMORY_DB) return true;
    const now = fileIdentity(this.path);
    return now !== undefined && now.dev === this.opened?.dev && now.ino === this.opened.ino;
  }

  /** Closes the file now; the next use opens it again. */
  close(): void {
    if (this.db) {
      for (const value of this.derived.values()) {
        try {
          (value as { beforeClose?: (prepare: Prepare) => void }).beforeClose?.(this.prepare);
        } catch {
          // A value that cannot note its state is read again on next use.
        }
      }
    }
    const db = this.db;
    this.db = undefined;
    if (this.background) releaseCheckpointer(this.path);
    this.background = false;
    this.uses = 0;
    this.statements.clear();
    this.setups.clear();
    this.readOnly = false;
    db?.close();
  }
}

function fileIdentity(path: string): { dev: number; ino: number } | undefined {
  const stats = statSync(path, { throwIfNoEntry: false });
  return stats ? { dev: stats.dev, ino: stats.ino } : undefined;
}

const isPromise = <T>(value: T | Promise<T>): value is Promise<T> => typeof (value as Promise<T> | undefined)?.then === "function";

function openFile(Database: DatabaseClass, path: string, mode: OpenMode): { db: Database.Database; readOnly: boolean } | undefined {
  if (path === IN_MEMORY_DB) return { db: configured(new Database(path, OPTIONS), path), readOnly: false };
  if (!exists(path)) {
    // Reading a file that is not there finds nothing: no folder or file is made just to read.
    if (mode === "read") return undefined;
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (error) {
      throw cannotOpen(path, error as Error);
    }
  } else if (!writable(path)) {
    return { db: openReadOnly(Database, path), readOnly: true };
  }
  let db: Database.Database;
  try {
    db = new Database(path, OPTIONS);
  } catch (error) {
    throw toStorageError(error, path);
  }
  return { db: configured(db, path), readOnly: false };
}

function configured(db: Database.Database, path: string): Database.Database {
  try {
    for (const sql of PRAGMAS) db.exec(sql);
    return db;
  } catch (error) {
    db.close();
    throw toStorageError(error, path);
  }
}

/** Whether `path` exists; a path that cannot exist (a file stands where a folder should) is a StorageError. */
function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw cannotOpen(path, error as Error);
  }
}

/** WAL needs the folder too: a reader adds the -shm and -wal files next to the database. */
function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    accessSync(dirname(path), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * A file this process may not write is opened read-only. In a folder it may not write either, SQLite
 * cannot add the -shm file a WAL reader needs, so the file is then read as immutable (without locks).
 */
function openReadOnly(Database: DatabaseClass, path: string): Database.Database {
  const url = pathToFileURL(path).href;
  let failure: unknown;
  for (const query of ["?mode=ro", "?mode=ro&immutable=1"]) {
    let db: Database.Database | undefined;
    try {
      db = new Database(url + query, OPTIONS);
      db.prepare("SELECT count(*) FROM sqlite_master").get();
      return db;
    } catch (error) {
      db?.close();
      failure = error;
      const code = (error as { rawCode?: unknown }).rawCode;
      // Only "read-only" or "cannot open" are worth the immutable retry; a corrupt file is reported at once.
      if (typeof code === "number" && (code & 0xff) !== 8 && (code & 0xff) !== 14) break;
    }
  }
  throw toStorageError(failure, path, true);
}
