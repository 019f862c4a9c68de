import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = join(import.meta.dirname, "../..");

describe("examples/flow-with-crew.ts", () => {
  it("runs a writer crew and a reviewer crew inside a flow, loops once through the router, then publishes and exits", async () => {
    const dir = await mkdtemp(join(tmpdir(), "crewts-flow-crew-example-"));
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, CREWTS_STORAGE_DIR: dir };
      for (const key of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OLLAMA_HOST", "CREWTS_MODEL", "MODEL"]) delete env[key];
      // execFile resolves only once the process has exited: the mock server and any database are closed.
      const { stdout } = await run(process.execPath, ["--import", "tsx", "examples/flow-with-crew.ts"], { cwd: root, env, timeout: 60_000 });
      const steps = stdout.split("\n").filter((line) => line.startsWith("[")).map((line) => /^\[(\w+)\]/.exec(line)?.[1]);
      expect(steps).toEqual(["writeDraft", "reviewDraft", "decide", "writeDraft", "reviewDraft", "decide", "publishDraft"]);
      expect(stdout).toContain("[reviewDraft] NEEDS WORK: add a concrete example.");
      expect(stdout).toMatch(/\[decide\] revise\n/);
      expect(stdout).toMatch(/\[decide\] publish\n/);
      expect(stdout).toMatch(/Result: Published after 2 rounds: Async functions .* For example, /);
      expect(stdout).toContain("State: rounds=2, review=APPROVED");
      expect(stdout).toContain("LLM requests served by the mock server: 4");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
