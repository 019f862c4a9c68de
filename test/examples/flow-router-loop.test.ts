import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = join(import.meta.dirname, "../..");

describe("examples/flow-router-loop.ts", () => {
  it("loops through its router until done, then resumes by id, and exits on its own", async () => {
    const dir = await mkdtemp(join(tmpdir(), "crewts-flow-example-"));
    try {
      const { stdout } = await run(process.execPath, ["--import", "tsx", "examples/flow-router-loop.ts"], {
        cwd: root,
        env: { ...process.env, CREWTS_STORAGE_DIR: dir },
      });
      expect(stdout.match(/finished improve/g)).toHaveLength(3);
      expect(stdout).toContain("(after 3 revisions)");
      expect(stdout).toMatch(/resumed [0-9a-f-]{36}: 3 revisions in total/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
