import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { SQLiteFlowPersistence } from "../../src/flow/index.js";
import { KillableFlow } from "./fixtures/killableFlow.js";
import { useTempStorageDir } from "./helpers.js";

const fixture = join(import.meta.dirname, "fixtures/killableFlow.ts");

const storage = useTempStorageDir("crewts-flow-kill-");

function runFixture(id: string, mode: "block" | "complete") {
  return spawn(process.execPath, ["--import", "tsx", fixture, id, mode], {
    env: { ...process.env, CREWTS_STORAGE_DIR: storage.dir },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Resolves with the first stdout line equal to or starting with `prefix`; rejects if the child exits first. */
async function waitForLine(child: ReturnType<typeof runFixture>, prefix: string): Promise<string> {
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) if (line.startsWith(prefix)) return line;
  throw new Error(`the child exited before printing "${prefix}"; stderr:\n${stderr}`);
}

describe("Flow kill and resume", () => {
  it("loses nothing written before a SIGKILL, and resumes from it by id", async () => {
    const id = "killed-flow";
    const child = runFixture(id, "block");
    await waitForLine(child, "BLOCKED");
    const exited = once(child, "exit");
    child.kill("SIGKILL");
    const [, signal] = (await exited) as [number | null, NodeJS.Signals | null];
    expect(signal).toBe("SIGKILL");

    const reader = new SQLiteFlowPersistence(join(storage.dir, "flow_states.db"));
    try {
      expect(await reader.loadState(id)).toEqual({ id, steps: ["one", "two"], runs: 1, block: true });
    } finally {
      await reader.close();
    }

    const resumed = new KillableFlow();
    expect(await resumed.kickoff({ id, block: false })).toBe("finished");
    // The killed run resumes after its finished methods: one and two do not run again (runs stays 1).
    expect(resumed.state).toEqual({ id, steps: ["one", "two", "three"], runs: 1, block: false });
    expect(resumed.methodOutputs).toEqual([undefined, undefined, "finished"]);

    // A finished run leaves no progress: kicking off by id again runs the flow again on the saved state.
    const again = new KillableFlow();
    expect(await again.kickoff({ id })).toBe("finished");
    expect(again.state).toEqual({ id, steps: ["one", "two", "three", "one", "two", "three"], runs: 2, block: false });
  });

  it("lets a process that ran a persisted flow exit on its own", async () => {
    const child = runFixture("exits-alone", "complete");
    const exited = once(child, "exit");
    expect(await waitForLine(child, "DONE")).toBe("DONE finished");
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
  });
});
