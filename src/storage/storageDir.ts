import { mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join, resolve } from "node:path";

/**
 * The one directory crewts stores data in (task outputs, flow states, memory, knowledge):
 * `CREWTS_STORAGE_DIR` when set, else a folder named after the current project under the user's
 * data directory, as CrewAI does with its per-project storage.
 */
export function storageDir(create = true): string {
  const fromEnv = process.env.CREWTS_STORAGE_DIR;
  const dir = fromEnv ? resolve(fromEnv) : join(userDataDir(), "crewts", projectName());
  if (create) mkdirSync(dir, { recursive: true });
  return dir;
}

/** The path of `file` inside the storage directory; nothing is created (a store makes the folder when it first writes). */
export function storagePath(file: string): string {
  return join(storageDir(false), file);
}

function userDataDir(): string {
  if (process.platform === "win32") return process.env.LOCALAPPDATA ?? join(homedir(), "AppData", "Local");
  if (process.platform === "darwin") return join(homedir(), "Library", "Application Support");
  return process.env.XDG_DATA_HOME ?? join(homedir(), ".local", "share");
}

function projectName(): string {
  return basename(process.cwd()).replace(/[^A-Za-z0-9._-]/g, "_") || "default";
}
