import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { startLocalServices, type LocalServices } from "../../services/localServices.js";

/** A database made for one test: its URL, and drop() for the test's end. */
export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** The Postgres of one test file. */
export interface TestPostgres {
  /** The server's URL (set before the file's tests run). */
  readonly url: string;
  /** Creates a database named `<prefix>_<random>` on the server. */
  newDatabase(prefix: string): Promise<TestDatabase>;
}

/** A real Postgres from scripts/services.sh, started for the calling test file and stopped after it. */
export function usePostgres(): TestPostgres {
  let services: LocalServices | undefined;
  let url = "";
  beforeAll(async () => {
    services = await startLocalServices("postgres");
    url = services.databaseUrl!;
  }, 90_000);
  afterAll(async () => {
    await services?.stop();
  }, 30_000);
  const admin = async (sql: string): Promise<void> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  return {
    get url() {
      return url;
    },
    async newDatabase(prefix) {
      const name = `${prefix}_${randomUUID().replace(/-/g, "")}`;
      await admin(`CREATE DATABASE ${name}`);
      return { url: url.replace(/\/[^/]+$/, `/${name}`), drop: () => admin(`DROP DATABASE ${name}`) };
    },
  };
}
