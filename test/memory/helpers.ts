import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** A file in this test file's storage directory (test/setup.ts gives each test file its own). */
export function storageFile(name: string): string {
  return join(process.env.CREWTS_STORAGE_DIR as string, name);
}

let blockers = 0;
/** A database path under a regular file: opening it fails, so every write to it fails. */
export function unwritablePath(): string {
  const blocker = storageFile(`blocker-${blockers++}`);
  writeFileSync(blocker, "not a directory");
  return join(blocker, "memory.db");
}
