import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { childOutput } from "../../fixtures/childOutput.js";

const fixture = join(import.meta.dirname, "fixtures/flowCrewPauseChild.ts");
let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "crewts-flow-crew-pause-process-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs the fixture in `dir` to its exit (it must exit on its own: nothing is left open after a pause) and returns its stdout. */
async function run(...args: string[]): Promise<string> {
  const child = spawn(process.execPath, ["--import", "tsx", fixture, ...args], { env: { ...process.env, CREWTS_STORAGE_DIR: dir, WORK_DIR: dir }, stdio: ["ignore", "pipe", "pipe"] });
  const { code, stdout, stderr } = await childOutput(child);
  expect(code, stderr).toBe(0);
  return stdout;
}

describe("a flow paused by its crew in one process", () => {
  it("is resumed in another: finished methods, tasks and model turns are not repeated, the approved tool runs once", async () => {
    const paused = /^PENDING (\S+) (.*)$/m.exec(await run("kickoff"));
    expect(paused).not.toBeNull();
    const [, id, info] = paused!;
    expect(JSON.parse(info!)).toEqual({ ran: ["method:plan", "method:write", "llm:research", "llm:writer"], crew: "writers", ticket: "T-7" });

    const done = /^RESULT (.*)$/m.exec(await run("resume", id!, "yes"));
    expect(done).not.toBeNull();
    // write runs again (its crew continues from the pause: no research, no first writer turn), then publish.
    expect(JSON.parse(done![1]!)).toEqual({
      ran: ["method:write", "tool:post", "llm:writer", "method:publish"],
      result: "published: article, posted Tides",
      log: ["planned", "published article, posted Tides"],
    });
  });
});
