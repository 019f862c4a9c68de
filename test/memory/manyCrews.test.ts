import { spawn } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SQLiteDatabase } from "../../src/storage/SQLiteDatabase.js";
import { childOutput } from "../fixtures/childOutput.js";

const fixture = join(import.meta.dirname, "fixtures/manyCrews.ts");
const CREWS = 1000;

/** Rows of `table` in a SQLite file (read with its own handle, closed afterwards). */
async function countRows(file: string, table: string): Promise<number> {
  const db = new SQLiteDatabase(() => file, []);
  try {
    return ((await db.use((prepare) => prepare(`SELECT count(*) AS n FROM ${table}`).get())) as { n: number }).n;
  } finally {
    await db.close();
  }
}

describe("many crews with memory in one process", () => {
  it(`saves every memory of ${CREWS} new crews and every state of ${CREWS} flow runs under ulimit -n 256, and holds no file once idle`, async () => {
    const storage = mkdtempSync(join(tmpdir(), "crewts-many-crews-"));
    // The limit is set in the shell that then becomes node, so it applies to the process under test only.
    const child = spawn("bash", ["-c", `ulimit -n 256 && exec "${process.execPath}" --expose-gc --import tsx "${fixture}" ${CREWS} 20`], {
      env: { ...process.env, CREWTS_STORAGE_DIR: storage },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const { code, stdout, stderr } = await childOutput(child);

    expect(stderr).not.toContain("CREWTS_MEMORY");
    expect(stderr).not.toMatch(/EMFILE|too many open files/i);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain(`DONE ${CREWS}`);
    expect(await countRows(join(storage, "long_term_memory.db"), "long_term_memories")).toBe(CREWS);
    expect(await countRows(join(storage, "short_term_memory.db"), "documents")).toBe(CREWS);
    expect(await countRows(join(storage, "latest_kickoff_task_outputs.db"), "latest_kickoff_task_outputs")).toBe(1);
    expect(await countRows(join(storage, "flow_states.db"), "flow_states")).toBe(CREWS);
    // Linux shows a process's open files in /proc: none left in the storage folder once the connections went idle.
    if (existsSync("/proc/self/fd")) expect(stdout).toContain("OPEN 0");
  }, 120_000);
});
