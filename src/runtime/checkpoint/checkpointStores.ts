import { randomBytes } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { CheckpointError } from "./errors.js";
import { JSONCheckpointStore, readCheckpointFile } from "./JSONCheckpointStore.js";
import { CHECKPOINTS_DB_FILE, SQLiteCheckpointStore } from "./SQLiteCheckpointStore.js";
import type { Checkpoint, CheckpointConfig, CheckpointFilter, CheckpointInfo, CheckpointStore } from "./types.js";

/** Where checkpoints go unless a location is given. */
export const DEFAULT_CHECKPOINT_LOCATION = "./.checkpoints";

// One store per file or directory in this process, so writers and readers share the lineage heads.
const stores = new Map<string, CheckpointStore>();

/** The store a checkpoint config names (stores of one location and provider are shared in the process). */
export function checkpointStoreFor(config: CheckpointConfig = {}): CheckpointStore {
  const database = config.provider === undefined && config.location === undefined ? process.env.CREWTS_DATABASE_URL : undefined;
  if (database) return shared(`postgres:${database}`, () => postgresStore(database));
  const provider = config.provider ?? "sqlite";
  if (typeof provider === "object") return provider;
  const location = resolve(config.location ?? DEFAULT_CHECKPOINT_LOCATION);
  if (provider === "json") {
    if (location.endsWith(".db")) throw new CheckpointError(`Checkpoint location "${location}" is a .db file, but provider "json" writes one file per checkpoint into a directory. Give a directory, or use provider "sqlite".`);
    return shared(`json:${location}`, () => new JSONCheckpointStore(location));
  }
  if (provider !== "sqlite") throw new CheckpointError(`Unknown checkpoint provider "${String(provider)}": use "sqlite", "json" or a CheckpointStore.`);
  const file = location.endsWith(".db") ? location : join(location, CHECKPOINTS_DB_FILE);
  return shared(`sqlite:${file}`, () => new SQLiteCheckpointStore(file));
}

function shared(key: string, make: () => CheckpointStore): CheckpointStore {
  let store = stores.get(key);
  if (!store) stores.set(key, (store = make()));
  return store;
}

/**
 * The default store when CREWTS_DATABASE_URL is set: PostgresCheckpointStore, imported on its first
 * use (runtime does not import src/stores statically, and pg itself loads on the first query).
 */
function postgresStore(url: string): CheckpointStore {
  let store: Promise<CheckpointStore> | undefined;
  const get = (): Promise<CheckpointStore> =>
    (store ??= import("../../stores/postgres/PostgresCheckpointStore.js").then((m) => new m.PostgresCheckpointStore({ url })));
  return {
    save: async (cp) => (await get()).save(cp),
    load: async (id) => (await get()).load(id),
    list: async (filter) => (await get()).list(filter),
    prune: async (lineage, keep) => (await get()).prune(lineage, keep),
    close: async () => {
      if (store) await (await store).close?.();
    },
  };
}

let counter = 0;
// Random per process, drawn once: with the time and the counter it keeps ids of different processes apart
// (a random draw per id cost a few microseconds of every checkpoint).
let processPart: string | undefined;

/** A new checkpoint id: time-ordered (so ids sort as they were written), unique across processes. */
export function newCheckpointId(): string {
  counter = (counter + 1) % 0x100000;
  processPart ??= randomBytes(5).toString("hex");
  return `${Date.now().toString(36).padStart(9, "0")}${counter.toString(36).padStart(4, "0")}-${processPart}`;
}

/** The stores a location may hold; without a location, the Postgres default (CREWTS_DATABASE_URL) first. */
function storesAt(location: string | undefined): CheckpointStore[] {
  const database = location === undefined && process.env.CREWTS_DATABASE_URL ? [checkpointStoreFor({})] : [];
  return [...database, ...filesAt(location)];
}

/** The file stores a location may hold: SQLite (`checkpoints.db`) and JSON files, whichever exist. */
function filesAt(location: string | undefined): CheckpointStore[] {
  const dir = resolve(location ?? DEFAULT_CHECKPOINT_LOCATION);
  if (dir.endsWith(".db")) return [checkpointStoreFor({ location: dir })];
  const found: CheckpointStore[] = [];
  if (existsSync(join(dir, CHECKPOINTS_DB_FILE))) found.push(checkpointStoreFor({ location: dir }));
  if (existsSync(dir) && statSync(dir).isDirectory()) found.push(checkpointStoreFor({ location: dir, provider: "json" }));
  return found;
}

/** Headers of every checkpoint at `location` (default ./.checkpoints; SQLite and JSON alike), oldest first: cheap, for long histories. */
export async function listCheckpointInfos(location?: string, filter?: CheckpointFilter): Promise<CheckpointInfo[]> {
  const all: CheckpointInfo[] = [];
  for (const store of storesAt(location)) all.push(...(await store.list(filter)));
  return all.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1));
}

/** Every checkpoint at `location` (default ./.checkpoints; SQLite and JSON alike), whole, oldest first. */
export async function listCheckpoints(location?: string, filter?: CheckpointFilter): Promise<Checkpoint[]> {
  const found: Checkpoint[] = [];
  for (const store of storesAt(location)) {
    for (const info of await store.list(filter)) {
      const cp = await store.load(info.id);
      if (cp) found.push(cp);
    }
  }
  return found.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1));
}

/**
 * A checkpoint by reference: a path to a JSON checkpoint file, or an id looked up at `location`
 * (default ./.checkpoints), or in `store` when given. Throws a CheckpointError naming where it looked.
 */
export async function loadCheckpoint(ref: string, options: { location?: string; store?: CheckpointStore } = {}): Promise<Checkpoint> {
  if (ref.endsWith(".json") || ref.includes("/") || ref.includes("\\")) {
    const cp = await readCheckpointFile(resolve(ref), true);
    if (!cp) throw new CheckpointError(`No checkpoint file at "${resolve(ref)}". Give an existing JSON checkpoint file or a checkpoint id.`);
    return cp;
  }
  const candidates = options.store ? [options.store] : storesAt(options.location);
  for (const store of candidates) {
    const cp = await store.load(ref);
    if (cp) return cp;
  }
  const where = options.store ? "the checkpoint store given" : `"${resolve(options.location ?? DEFAULT_CHECKPOINT_LOCATION)}"`;
  throw new CheckpointError(`No checkpoint "${ref}" in ${where}. List them with \`crewts checkpoint list --location <dir>\`, or pass the location the run wrote to.`);
}
