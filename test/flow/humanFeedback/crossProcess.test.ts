import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useTempStorageDir } from "../helpers.js";
import { childOutput } from "../../fixtures/childOutput.js";

const fixture = join(import.meta.dirname, "fixtures/pausingFlow.ts");
const storage = useTempStorageDir("crewts-hitl-process-");

/** Runs the fixture to its exit (it must exit on its own: nothing left open after a pause) and returns its stdout. */
async function run(...args: string[]): Promise<string> {
  const child = spawn(process.execPath, ["--import", "tsx", fixture, ...args], { env: { ...process.env, CREWTS_STORAGE_DIR: storage.dir }, stdio: ["ignore", "pipe", "pipe"] });
  const { code, stdout, stderr } = await childOutput(child);
  expect(code, stderr).toBe(0);
  return stdout;
}

describe("a flow paused in one process", () => {
  it("is resumed in another from its id, without rerunning finished methods", async () => {
    const paused = /^PENDING (\S+) (.*)$/m.exec(await run("kickoff"));
    expect(paused).not.toBeNull();
    const [, id, info] = paused!;
    expect(JSON.parse(info!)).toEqual({ ran: ["prepare", "review"], callbackInfo: { channel: "#reports" } });

    const done = /^RESULT (.*)$/m.exec(await run("resume", id!, "yes, send it"));
    expect(JSON.parse(done![1]!)).toEqual({ ran: ["deliver"], result: ["prepared", "sent report v1: yes, send it"] });
  });
});
