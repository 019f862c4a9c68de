import { SQLiteFlowPersistence } from "../flow/persistence/SQLiteFlowPersistence.js";
import type { FlowPersistence } from "../flow/persistence/FlowPersistence.js";
import { SQLiteTaskOutputStore } from "../storage/SQLiteTaskOutputStore.js";
import type { TaskOutputStore } from "../storage/TaskOutputStore.js";
import { PostgresFlowPersistence } from "./postgres/PostgresFlowPersistence.js";
import { PostgresTaskOutputStore } from "./postgres/PostgresTaskOutputStore.js";

// Neither Postgres store loads pg before its first query, so choosing one here costs nothing at import.

/** Where a crew keeps its latest kickoff's task outputs by default: Postgres when CREWTS_DATABASE_URL is set (one scope per crew name), else SQLite. */
export function defaultTaskOutputStore(crewName: string): TaskOutputStore {
  const url = process.env.CREWTS_DATABASE_URL;
  return url ? new PostgresTaskOutputStore({ url, scope: crewName }) : new SQLiteTaskOutputStore();
}

/** Where @persist keeps flow states by default: Postgres when CREWTS_DATABASE_URL is set, else SQLite. */
export function defaultFlowPersistence(): FlowPersistence {
  const url = process.env.CREWTS_DATABASE_URL;
  return url ? new PostgresFlowPersistence({ url }) : new SQLiteFlowPersistence();
}
