import { isAbsolute, join, normalize } from "node:path";
import {
  CASSETTE_MODES,
  CassetteError,
  CassetteMismatchError,
  startCassetteServer,
  type CassetteMode,
  type CassetteServer,
  type CassetteUpstream,
  type CassetteMatchOptions,
} from "./cassetteServer.js";
import { DEFAULT_UPSTREAMS } from "./cassette/upstream.js";

/** Options of withCassette. */
export interface WithCassetteOptions {
  /** Default: env CREWTS_CASSETTE_MODE, else "replay" in CI (CI=true) and "auto" elsewhere. */
  mode?: CassetteMode;
  /** Folder of the cassettes (default env CREWTS_CASSETTE_DIR, else "test/cassettes" under the working directory). */
  dir?: string;
  /** Where recording forwards to; default: what OPENAI_BASE_URL / ANTHROPIC_BASE_URL named before, else the real APIs. */
  upstream?: CassetteUpstream;
  match?: CassetteMatchOptions;
}

/** The key set in replay mode when none is: providers refuse to start without one, and replay needs none. */
export const CASSETTE_DUMMY_API_KEY = "crewts-cassette-replay-key";

// The env crewts's providers and embedders read their server from (src/llm/providerModel.ts); the
// OpenAI embedder shares OPENAI_BASE_URL. Ollama (OLLAMA_HOST) is not routed: it needs no recording.
const BASE_URL_VARS = ["OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"] as const;
const API_KEY_VARS = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"] as const;

/** The mode to use: the given one, else CREWTS_CASSETTE_MODE, else "replay" on CI and "auto" elsewhere. */
export function resolveCassetteMode(mode?: string, env: NodeJS.ProcessEnv = process.env): CassetteMode {
  const chosen = mode ?? (env.CREWTS_CASSETTE_MODE?.trim() || undefined);
  if (chosen !== undefined) {
    if (CASSETTE_MODES.includes(chosen as CassetteMode)) return chosen as CassetteMode;
    const from = mode !== undefined ? "mode" : "CREWTS_CASSETTE_MODE";
    throw new CassetteError(`${from} must be one of ${CASSETTE_MODES.join(", ")}; got ${JSON.stringify(chosen)}.`);
  }
  return env.CI === "true" || env.CI === "1" ? "replay" : "auto";
}

/** The upstreams recording should use: whatever the env pointed the providers at before the cassette took over. */
export function upstreamFromEnv(env: NodeJS.ProcessEnv = process.env): CassetteUpstream {
  return { openai: env.OPENAI_BASE_URL || DEFAULT_UPSTREAMS.openai, anthropic: env.ANTHROPIC_BASE_URL || DEFAULT_UPSTREAMS.anthropic };
}

/**
 * The env that sends a process's provider traffic through `server`. In replay mode a placeholder key
 * is added for each provider the cassette holds traffic of (both when it holds none) and whose key is
 * unset: a project that picks its model by which key is set then picks the recorded provider.
 */
export function cassetteEnv(server: Pick<CassetteServer, "url" | "mode" | "exchanges">, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of BASE_URL_VARS) out[name] = server.url;
  if (server.mode !== "replay") return out;
  const anthropic = server.exchanges.some((e) => /\/messages$/.test(e.request.path));
  const openai = server.exchanges.some((e) => !/\/messages$/.test(e.request.path));
  const wanted = { OPENAI_API_KEY: openai || !anthropic, ANTHROPIC_API_KEY: anthropic || !openai };
  for (const name of API_KEY_VARS) if (wanted[name] && !env[name]) out[name] = CASSETTE_DUMMY_API_KEY;
  return out;
}

/** The cassette file for `name`: `<dir>/<name>.json`, never outside `dir`. */
export function cassettePath(name: string, dir?: string): string {
  const folder = dir ?? (process.env.CREWTS_CASSETTE_DIR || join("test", "cassettes"));
  const file = name.endsWith(".json") ? name : `${name}.json`;
  if (name.trim() === "" || isAbsolute(name) || normalize(file).startsWith("..")) {
    throw new CassetteError(`cassette name must be a relative name like "crew-basic" or "crews/research"; got ${JSON.stringify(name)}.`);
  }
  return join(folder, file);
}

let active: string | undefined;

/**
 * Runs `fn` with OPENAI_BASE_URL and ANTHROPIC_BASE_URL pointing at a cassette server for
 * `<dir>/<name>.json`, then restores the env (even when `fn` throws) and writes the cassette. Rejects
 * with CassetteMismatchError when a request had no recorded answer, even if `fn` caught the LLM error.
 * The env is process-wide, so calls must not overlap: an overlapping call is refused. Test runners
 * that run files in separate workers (vitest, node --test) are fine; within a file, do not run
 * withCassette tests concurrently (use startCassetteServer and pass `url` as baseURL instead).
 */
export async function withCassette<T>(name: string, fn: (cassette: CassetteServer) => T | Promise<T>, options: WithCassetteOptions = {}): Promise<T> {
  const path = cassettePath(name, options.dir);
  if (active !== undefined) {
    throw new CassetteError(`withCassette("${name}") started while withCassette("${active}") is running: they share process env vars, so run them one after another, or use startCassetteServer with an explicit baseURL.`);
  }
  const mode = resolveCassetteMode(options.mode);
  active = name;
  const saved = new Map<string, string | undefined>();
  let server: CassetteServer | undefined;
  try {
    server = await startCassetteServer({ cassette: path, mode, upstream: options.upstream ?? upstreamFromEnv(), ...(options.match ? { match: options.match } : {}) });
    for (const [envName, value] of Object.entries(cassetteEnv(server))) {
      saved.set(envName, process.env[envName]);
      process.env[envName] = value;
    }
    let result: T;
    try {
      result = await fn(server);
    } catch (error) {
      // The LLM error a mismatch causes keeps only the start of the message; the full account wins.
      if (server.unmatched.length > 0) throw new CassetteMismatchError(server.unmatched, { cause: error });
      throw error;
    }
    await server.close();
    if (server.unmatched.length > 0) throw new CassetteMismatchError(server.unmatched);
    return result;
  } finally {
    for (const [envName, value] of saved) {
      if (value === undefined) delete process.env[envName];
      else process.env[envName] = value;
    }
    await server?.close();
    active = undefined;
  }
}
