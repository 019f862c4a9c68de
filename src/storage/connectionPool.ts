import { IN_MEMORY_DB, SQLiteConnection } from "./SQLiteConnection.js";

/**
 * The process-wide pool of SQLite connections, one per file (by resolved path), shared by every store
 * on it: a hundred crews with memory hold four files open, not four hundred. A connection unused between
 * two sweeps (one every `idleMs`, on an unref'd timer) is closed, so an idle process holds no files;
 * the next use opens it again. A connection whose last share was released is closed by the next sweep
 * too, not at once: libsql 0.5 frees a closed connection's files only once the garbage collector has
 * reclaimed its statements (tursodatabase/libsql-js#228), so closing and reopening a file on every flow
 * run would pile up open files. A private ":memory:" database is never pooled: its store owns it.
 */
const connections = new Map<string, SQLiteConnection>();

/** Time between two idle sweeps: a connection closes between one and two of these after its last use. */
export const DEFAULT_IDLE_MS = 1000;
let idleMs = DEFAULT_IDLE_MS;
let timer: NodeJS.Timeout | undefined;

/** The connection of the file at `path` (resolved), with one more share taken on it. */
export function acquireConnection(path: string): SQLiteConnection {
  if (path === IN_MEMORY_DB) {
    const own = new SQLiteConnection(path);
    own.shares = 1;
    return own;
  }
  let connection = connections.get(path);
  // A store that starts on a file deleted or replaced since it was opened gets the file now at the path.
  if (connection?.db && !connection.inTransaction && !connection.isCurrent()) connection.close();
  if (!connection) {
    connection = new SQLiteConnection(path, scheduleSweep);
    connections.set(path, connection);
  }
  connection.shares++;
  return connection;
}

/**
 * Gives a share back once the connection's queued transactions are done. A private in-memory database
 * closes with its last share; a file's connection is left to the idle sweep (see above).
 */
export async function releaseConnection(connection: SQLiteConnection): Promise<void> {
  connection.shares--;
  if (connection.shares > 0) return;
  await connection.settled();
  // Taken again while the transactions finished: the new holder keeps it.
  if (connection.shares > 0) return;
  if (connection.path === IN_MEMORY_DB) connection.close();
  else if (!connection.db && connections.get(connection.path) === connection) connections.delete(connection.path);
}

/** Closes every pooled connection unused since the previous sweep and not in a transaction; returns how many. */
export function sweepIdleConnections(): number {
  let closed = 0;
  for (const [path, connection] of connections) {
    if (connection.used || connection.inTransaction) {
      connection.used = false;
      continue;
    }
    if (connection.db) {
      connection.close();
      closed++;
    }
    if (connection.shares === 0) connections.delete(path);
  }
  return closed;
}

/** Open pooled connections (for tests and diagnostics). */
export function openConnectionCount(): number {
  let open = 0;
  for (const connection of connections.values()) if (connection.db) open++;
  return open;
}

/** Sets the time between idle sweeps and restarts the sweep timer (tests use it with fake timers, or call sweepIdleConnections). */
export function setIdleTime(ms: number): void {
  idleMs = ms;
  clearTimeout(timer);
  timer = undefined;
  if (openConnectionCount() > 0) scheduleSweep();
}

function scheduleSweep(): void {
  if (timer) return;
  timer = setTimeout(() => {
    timer = undefined;
    sweepIdleConnections();
    if (openConnectionCount() > 0) scheduleSweep();
  }, idleMs);
  // The sweep must never keep a finished program alive.
  timer.unref();
}
