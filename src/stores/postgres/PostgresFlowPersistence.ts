import type { FlowPersistence } from "../../flow/persistence/FlowPersistence.js";
import { PostgresDatabase, type Migration } from "./PostgresDatabase.js";

// As the SQLite table: one row per save so a flow's history stays inspectable; loads read the newest.
// `json` (not jsonb) keeps the state's keys in the order the flow wrote them.
const MIGRATIONS: Migration[] = [
  {
    version: 1,
    sql: [
      `CREATE TABLE IF NOT EXISTS crewts_flow_states (
        id BIGSERIAL PRIMARY KEY,
        flow_uuid TEXT NOT NULL,
        method_name TEXT NOT NULL,
        saved_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        state JSON NOT NULL
      )`,
      "CREATE INDEX IF NOT EXISTS crewts_flow_states_uuid ON crewts_flow_states (flow_uuid, id DESC)",
    ],
  },
];

/** Options of PostgresFlowPersistence. */
export interface PostgresFlowPersistenceOptions {
  /** postgres://user:password@host:5432/database; default: CREWTS_DATABASE_URL. */
  url?: string;
}

/** Flow states in Postgres (table crewts_flow_states, created on first use), shared by every process on the database. */
export class PostgresFlowPersistence implements FlowPersistence {
  private readonly db: PostgresDatabase;

  constructor(options: PostgresFlowPersistenceOptions = {}) {
    this.db = new PostgresDatabase(databaseUrl(options.url, "PostgresFlowPersistence"), "flow_states", MIGRATIONS);
  }

  /** Appends the state as it was after `methodName`. */
  async saveState(flowId: string, methodName: string, state: Record<string, unknown>): Promise<void> {
    const json = JSON.stringify(state);
    await this.db.use((client) => client.query("INSERT INTO crewts_flow_states (flow_uuid, method_name, state) VALUES ($1, $2, $3)", [flowId, methodName, json]));
  }

  /** The newest state saved for `flowId`, or undefined. */
  async loadState(flowId: string): Promise<Record<string, unknown> | undefined> {
    const result = await this.db.use((client) =>
      client.query<{ state: Record<string, unknown> }>("SELECT state FROM crewts_flow_states WHERE flow_uuid = $1 ORDER BY id DESC LIMIT 1", [flowId]),
    );
    return result.rows[0]?.state;
  }

  /** Gives the connection pool back; saving again reopens it. */
  async close(): Promise<void> {
    await this.db.close();
  }
}

/** `given`, else CREWTS_DATABASE_URL, else a clear error for `who`. */
export function databaseUrl(given: string | undefined, who: string): string {
  const url = given ?? process.env.CREWTS_DATABASE_URL;
  if (!url) throw new TypeError(`${who} needs a database URL: pass { url: "postgres://..." } or set CREWTS_DATABASE_URL.`);
  return url;
}
