import type { Pool, PoolClient } from "pg";
import { loadOptionalPeer } from "../../storage/optionalPeer.js";

/** A Postgres store could not reach or use its database; the message says which and what to do. */
export class PostgresStoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PostgresStoreError";
  }
}

/** One schema change of a component; `version` counts up from 1 and is never reused. */
export interface Migration {
  version: number;
  sql: string[];
}

interface SharedPool {
  pool: Pool;
  users: number;
  /** Components whose schema is known to be current on this pool's database (migrated once per pool, not per store). */
  migrated: Map<string, Promise<void>>;
}

// Stores on one URL share a pool (a worker runs many crews at once; one pool each would exhaust the
// server's connections). The pool ends when its last store closes.
const pools = new Map<string, SharedPool>();

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(an unparsable database URL)";
  }
}

/**
 * A store's handle on a Postgres database: the pool is opened on first use, the component's schema is
 * created or migrated once (recorded in `crewts_schema_version`, under an advisory lock so processes
 * starting together migrate once), and close() gives the pool back.
 */
export class PostgresDatabase {
  private shared: SharedPool | undefined;
  private ready: Promise<void> | undefined;

  constructor(
    readonly url: string,
    private readonly component: string,
    private readonly migrations: Migration[],
  ) {
    if (!/^postgres(ql)?:\/\//.test(url)) {
      throw new PostgresStoreError(`Not a Postgres URL: ${redactUrl(url)}. Use postgres://user:password@host:5432/database.`);
    }
  }

  /** Runs `work` with a pooled client once the schema is up to date. */
  async use<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const pool = await this.open();
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw this.unreachable(error);
    }
    try {
      return await work(client);
    } finally {
      client.release();
    }
  }

  /** Gives this store's share of the pool back; the next use opens it again. */
  async close(): Promise<void> {
    const shared = this.shared;
    if (!shared) return;
    this.shared = undefined;
    this.ready = undefined;
    if (--shared.users > 0) return;
    if (pools.get(this.url) === shared) pools.delete(this.url);
    await shared.pool.end();
  }

  private async open(): Promise<Pool> {
    if (!this.shared) {
      const pg = await loadOptionalPeer(() => import("pg"), "pg@^8", "Postgres stores");
      // A pool may have been shared while pg loaded.
      if (!this.shared) {
        let shared = pools.get(this.url);
        if (!shared) {
          const pool = new (pg.default ?? pg).Pool({ connectionString: this.url, max: 10, idleTimeoutMillis: 10_000, allowExitOnIdle: true });
          // An idle client losing its connection must not crash the process; the next query reconnects.
          pool.on("error", () => {});
          pools.set(this.url, (shared = { pool, users: 0, migrated: new Map() }));
        }
        shared.users++;
        this.shared = shared;
      }
    }
    const { pool, migrated } = this.shared;
    if (!this.ready) {
      let done = migrated.get(this.component);
      if (!done) {
        done = this.migrate(pool);
        migrated.set(this.component, done);
        // A failed migration is tried again by the next use.
        done.catch(() => migrated.delete(this.component));
      }
      this.ready = done;
    }
    try {
      await this.ready;
    } catch (error) {
      this.ready = undefined;
      throw error;
    }
    return pool;
  }

  private async migrate(pool: Pool): Promise<void> {
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw this.unreachable(error);
    }
    try {
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock(hashtext('crewts_schema_version'))");
      await client.query("CREATE TABLE IF NOT EXISTS crewts_schema_version (component TEXT PRIMARY KEY, version INTEGER NOT NULL, updated_at TIMESTAMPTZ NOT NULL DEFAULT now())");
      const found = await client.query<{ version: number }>("SELECT version FROM crewts_schema_version WHERE component = $1", [this.component]);
      const current = found.rows[0]?.version ?? 0;
      const latest = this.migrations.at(-1)?.version ?? 0;
      if (current > latest) {
        throw new PostgresStoreError(
          `The ${this.component} tables in ${redactUrl(this.url)} are at schema version ${current}, newer than this crewts knows (${latest}). Update crewts, or use another database.`,
        );
      }
      for (const migration of this.migrations) {
        if (migration.version <= current) continue;
        for (const sql of migration.sql) await client.query(sql);
      }
      if (latest > current) {
        await client.query(
          "INSERT INTO crewts_schema_version (component, version) VALUES ($1, $2) ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version, updated_at = now()",
          [this.component, latest],
        );
      }
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error instanceof PostgresStoreError ? error : new PostgresStoreError(`Could not set up the ${this.component} tables in ${redactUrl(this.url)}: ${(error as Error).message}`, { cause: error });
    } finally {
      client.release();
    }
  }

  private unreachable(error: unknown): PostgresStoreError {
    return new PostgresStoreError(
      `Could not connect to Postgres at ${redactUrl(this.url)}: ${(error as Error).message}. Check that the server runs and CREWTS_DATABASE_URL is right (scripts/services.sh start runs one for development).`,
      { cause: error },
    );
  }
}
