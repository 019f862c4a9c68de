import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const script = resolve(import.meta.dirname, "../../scripts/services.sh");

/** Redis and/or Postgres for one test file: URLs, and stop() that ends exactly what was started. */
export interface LocalServices {
  redisUrl?: string;
  databaseUrl?: string;
  stop(): Promise<void>;
}

/**
 * Starts a private Redis and/or Postgres with scripts/services.sh in a temporary folder (each test
 * file its own, so files running in parallel never share data). CREWTS_TEST_REDIS_URL and
 * CREWTS_TEST_DATABASE_URL, when set, are used instead and nothing is started.
 */
export async function startLocalServices(which: "redis" | "postgres" | "all"): Promise<LocalServices> {
  const wantRedis = which !== "postgres";
  const wantPostgres = which !== "redis";
  const givenRedis = process.env.CREWTS_TEST_REDIS_URL;
  const givenDatabase = process.env.CREWTS_TEST_DATABASE_URL;
  const needed = (wantRedis && !givenRedis ? ["redis"] : []).concat(wantPostgres && !givenDatabase ? ["postgres"] : []);
  const urls: { redisUrl?: string; databaseUrl?: string } = {};
  if (wantRedis && givenRedis) urls.redisUrl = givenRedis;
  if (wantPostgres && givenDatabase) urls.databaseUrl = givenDatabase;
  if (needed.length === 0) return { ...urls, stop: async () => {} };

  const dir = await mkdtemp(join(tmpdir(), "crewts-services-"));
  const env = { ...process.env, CREWTS_SERVICES_DIR: dir };
  const stop = async (): Promise<void> => {
    await run(script, ["stop"], { env });
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const { stdout } = await run(script, ["start", needed.length === 2 ? "all" : needed[0]!], { env, timeout: 60_000 });
    for (const line of stdout.split("\n")) {
      const [key, value] = line.split("=", 2);
      if (key === "CREWTS_REDIS_URL" && wantRedis) urls.redisUrl ??= value;
      if (key === "CREWTS_DATABASE_URL" && wantPostgres) urls.databaseUrl ??= value;
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { ...urls, stop };
}
