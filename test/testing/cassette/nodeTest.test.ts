import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../../..");

describe("withCassette under node:test", () => {
  it("records, replays and reports a mismatch in a node --test run", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crewts-node-test-cassettes-"));
    const child = spawn(process.execPath, ["--import", "tsx", "--test", "test/fixtures/cassette/nodeTestCassette.ts"], {
      cwd: root,
      env: { ...process.env, CREWTS_CASSETTE_DIR: dir, CI: "", CREWTS_CASSETTE_MODE: "" },
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((done) => child.once("exit", done));
    expect(output).toMatch(/# pass 1/);
    expect(code).toBe(0);
    const cassette = readFileSync(join(dir, "node-test.json"), "utf8");
    expect(cassette).toContain('"question"');
    expect(cassette).not.toContain("sk-node-test-secret-123");
  });
});
