import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Every test file gets its own storage directory, so tests never touch the user's data directory and
// parallel test files never share a SQLite file.
process.env.CREWTS_STORAGE_DIR = mkdtempSync(join(tmpdir(), "crewts-test-storage-"));
