import { resolve } from "node:path";
import { acquireConnection, releaseConnection } from "./connectionPool.js";
import { IN_MEMORY_DB, type OpenMode, type Prepare, type SQLiteConnection } from "./SQLiteConnection.js";
import { toStorageError } from "./StorageError.js";

export { IN_MEMORY_DB, type Prepare, type SQLiteStatement } from "./SQLiteConnection.js";

/**
 * A store's handle on an embedded SQLite file, on libsql's statement API: a share of the process-wide
 * connection of that file (see connectionPool), which opens on first use, closes when idle and opens
 * again on the next use, with `setup` run once per open connection and statements prepared once per
 * connection. Stores whose writes sit between two steps of a run (flow saves, task outputs) use it:
 * a prepared statement runs in about half the time of the async client.
 *
 * Statements are used inside use(), read() and transaction() only: the connection may be closed for
 * idleness, which drops them. Failures are StorageErrors that name the file and the fix.
 */
export class SQLiteDatabase {
  private connection: SQLiteConnection | undefined;
  private readonly setupKey: string;
  // Commits of this handle on the current open connection, to tell them from other handles' (changeMark).
  private ownCommits = 0;
  private ownGeneration = -1;

  /**
   * `path` is resolved on first use (":memory:" for a private in-memory database); `setup` runs once per
   * open connection. `backgroundCheckpoints`: the file's log is checkpointed on a worker thread (for
   * stores that write at every step of a run; see walCheckpointer).
   */
  constructor(
    private readonly path: () => string,
    private readonly setup: readonly string[],
    private readonly options: { backgroundCheckpoints?: boolean } = {},
  ) {
    this.setupKey = setup.join(";\n");
  }

  /** The file this handle uses (resolved on first use). */
  get file(): string {
    return this.connection?.path ?? resolvedPath(this.path());
  }

  /**
   * Runs `action` with the open connection's statements (prepared once per connection) and returns what it
   * returns; opens the file first, creating it (and its folder) when missing. The action is synchronous so
   * that no transaction of another store can begin between the check and the statements it runs.
   */
  async use<T>(action: (prepare: Prepare) => T): Promise<T> {
    const connection = this.share();
    while (!this.available(connection)) await this.reach(connection, "write");
    return this.guard(() => action(connection.prepare));
  }

  /** Like use(), but undefined when the file does not exist (nothing is created) or, opened read-only, lacks a table. */
  async read<T>(action: (prepare: Prepare) => T): Promise<T | undefined> {
    const connection = this.share();
    while (!this.available(connection)) if (!(await this.reach(connection, "read"))) return undefined;
    try {
      return action(connection.prepare);
    } catch (error) {
      if (connection.readOnly && /no such table/i.test((error as Error).message)) return undefined;
      throw this.failure(error);
    }
  }

  /** Whether there is anything to read: the connection is open, or the file exists (then it is opened). */
  async canRead(): Promise<boolean> {
    const connection = this.share();
    while (!this.available(connection)) if (!(await this.reach(connection, "read"))) return false;
    return true;
  }

  /**
   * Runs `body` in a transaction (BEGIN IMMEDIATE, COMMIT, or ROLLBACK when it throws). Transactions on one
   * connection run one at a time, whichever store starts them, and use() and read() wait while one is
   * open. The body must use `prepare`, not use() (which would wait for the body itself).
   */
  transaction<T>(body: (prepare: Prepare) => T | Promise<T>): Promise<T> {
    const connection = this.share();
    return connection.serialize(async () => {
      while (!this.available(connection)) await this.reach(connection, "write");
      try {
        const result = await connection.transaction(body);
        this.countCommit(connection);
        return result;
      } catch (error) {
        throw this.failure(error);
      }
    });
  }

  /**
   * A mark that changes when someone other than this handle committed to the file (another process or
   * another handle on the shared connection), or the connection was opened again, since the last mark.
   */
  async changeMark(): Promise<string> {
    const connection = this.share();
    const version = await this.use((prepare) => (prepare("PRAGMA data_version").get() as { data_version: number } | undefined)?.data_version);
    const own = this.ownGeneration === connection.generation ? this.ownCommits : 0;
    return `${connection.generation}:${version}:${connection.commits - own}`;
  }

  /**
   * A value derived from the file's content (an in-process index), shared by every handle on the file and
   * kept while they share it (across idle closes): made by `make` on first use. It checks itself whether
   * it is current (writeState), and may define beforeClose(prepare) to note its state before a close.
   */
  derived<T>(key: string, make: () => T): T {
    const connection = this.share();
    let value = connection.derived.get(key) as T | undefined;
    if (value === undefined) {
      value = make();
      connection.derived.set(key, value);
    }
    return value;
  }

  /**
   * Names the connection's writes so far (its open, commits and rollbacks): a derived value made at one
   * state is current while the state is the same and no other process wrote (PRAGMA data_version).
   * `afterCommit`, in a transaction's body, names the state once that transaction has committed.
   */
  writeState(afterCommit = false): string {
    const connection = this.share();
    return `${connection.generation}:${connection.commits + (afterCommit ? 1 : 0)}:${connection.rollbacks}`;
  }

  /** Gives this handle's share of the connection back (without shares it closes when idle); the next use takes one again. */
  async close(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    if (connection) await releaseConnection(connection);
  }

  private share(): SQLiteConnection {
    if (this.connection) return this.connection;
    this.connection = acquireConnection(resolvedPath(this.path()));
    return this.connection;
  }

  /**
   * Whether `connection` is open and outside any transaction, checked in the same step as the statements
   * that follow (a transaction may begin while an await resolves); runs this handle's setup on it once.
   */
  private available(connection: SQLiteConnection): boolean {
    if (!connection.db || connection.inTransaction) return false;
    this.guard(() => connection.ensureSetup(this.setupKey, this.setup));
    if (this.options.backgroundCheckpoints) this.guard(() => connection.checkpointInBackground());
    connection.used = true;
    connection.countUse();
    return true;
  }

  /** Opens the connection, or waits for its transaction to end; false for a read of a file that does not exist. */
  private async reach(connection: SQLiteConnection, mode: OpenMode): Promise<boolean> {
    if (!connection.db) return connection.open(mode);
    await connection.outsideTransaction();
    return true;
  }

  private countCommit(connection: SQLiteConnection): void {
    if (this.ownGeneration !== connection.generation) {
      this.ownGeneration = connection.generation;
      this.ownCommits = 0;
    }
    this.ownCommits++;
  }

  private guard<T>(action: () => T): T {
    try {
      return action();
    } catch (error) {
      throw this.failure(error);
    }
  }

  private failure(error: unknown): unknown {
    return toStorageError(error, this.file, this.connection?.readOnly ?? false);
  }
}

const resolvedPath = (path: string): string => (path === IN_MEMORY_DB ? path : resolve(path));
