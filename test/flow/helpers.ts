import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";

/** A promise with its resolve function exposed, for waiting on a point inside a flow method. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Work of a known length inside a flow method (what concurrency tests measure), not synchronization. */
export function work(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Gives each test of the calling file a fresh CREWTS_STORAGE_DIR (removed afterwards, the previous
 * value restored); `storage.dir` is the current test's folder.
 */
export function useTempStorageDir(prefix: string): { readonly dir: string } {
  const storage = { dir: "" };
  let previous: string | undefined;
  beforeEach(async () => {
    storage.dir = await mkdtemp(join(tmpdir(), prefix));
    previous = process.env.CREWTS_STORAGE_DIR;
    process.env.CREWTS_STORAGE_DIR = storage.dir;
  });
  afterEach(async () => {
    if (previous === undefined) delete process.env.CREWTS_STORAGE_DIR;
    else process.env.CREWTS_STORAGE_DIR = previous;
    await rm(storage.dir, { recursive: true, force: true });
  });
  return storage;
}
