import { existsSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { parseEnv } from "node:util";
import { CassetteMismatchError, startCassetteServer } from "../../testing/cassetteServer.js";
import { cassetteEnv, resolveCassetteMode, upstreamFromEnv } from "../../testing/withCassette.js";
import type { CliContext } from "../CliContext.js";
import { CliError } from "../CliError.js";
import { findProject } from "../findProject.js";
import { runInProject } from "../runInProject.js";
import type { TestCrewOptions } from "./testCrew.js";

/** Where `crewts test --record` keeps the project's cassette unless --cassette says otherwise. */
export const DEFAULT_TEST_CASSETTE = "test/cassettes/crewts-test.json";

/**
 * `crewts test --record | --replay`: runs the project's test() with OPENAI_BASE_URL and
 * ANTHROPIC_BASE_URL pointing at a cassette server in this process. Recording forwards to where the
 * environment (or the project's .env) pointed before, else the real APIs; replay needs no key and no network.
 */
export async function testWithCassette(ctx: CliContext, args: string[], options: TestCrewOptions): Promise<number> {
  if (options.record && options.replay) throw new CliError("--record and --replay cannot be used together: record once with a provider key, then replay (in CI) without one.");
  const project = findProject();
  const path = resolve(project.root, options.cassette ?? DEFAULT_TEST_CASSETTE);
  // The child loads .env itself; the values matter here too, for the upstream and whether a key is set.
  const env = { ...projectDotEnv(project.root), ...process.env };
  // --cassette alone: CREWTS_CASSETTE_MODE, else replay on CI and auto elsewhere, as withCassette.
  const mode = options.record ? "record" : options.replay ? "replay" : resolveCassetteMode(undefined, env);
  const server = await startCassetteServer({ cassette: path, mode, upstream: upstreamFromEnv(env) }).catch((error: unknown) => {
    throw new CliError(error instanceof Error ? error.message : String(error));
  });
  let code: number;
  try {
    code = await runInProject(ctx.cliEntry, "test", args, project, { ...process.env, ...cassetteEnv(server, env) });
  } finally {
    await server.close();
  }
  if (server.unmatched.length > 0) throw new CliError(new CassetteMismatchError(server.unmatched).message);
  const shown = relative(process.cwd(), path) || path;
  console.log(`Cassette ${shown}: ${server.recorded} exchange(s) recorded, ${server.replayed} replayed.`);
  return code;
}

function projectDotEnv(root: string): Record<string, string> {
  const file = join(root, ".env");
  if (!existsSync(file)) return {};
  return parseEnv(readFileSync(file, "utf8")) as Record<string, string>;
}
