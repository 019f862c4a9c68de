import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CliError } from "../../src/cli/CliError.js";
import { runProjectAction } from "../../src/cli/runner/projectRunner.js";
import { Mem0Provider } from "../../src/index.js";
import { startFakeMem0, type FakeMem0Server } from "../memory/mem0Server.js";

const entry = join(import.meta.dirname, "..", "fixtures", "projects", "externalMemoryCrew.ts");

describe("crewts reset-memories --external (in the project's process)", () => {
  let mem0: FakeMem0Server;
  let printed: string[];
  beforeEach(async () => {
    mem0 = await startFakeMem0();
    vi.stubEnv("TEST_MEM0_URL", mem0.url);
    vi.stubEnv("TEST_MEM0_KEY", mem0.apiKey);
    printed = [];
    vi.spyOn(console, "log").mockImplementation((line: unknown) => void printed.push(String(line)));
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
    await mem0.close();
  });

  it("builds the crew with createCrew() and clears what its external memory keeps at the provider", async () => {
    const provider = new Mem0Provider({ apiKey: mem0.apiKey, baseURL: mem0.url, userId: "travellers" });
    await provider.save("Alice prefers window seats", {});
    expect(mem0.memories).toHaveLength(1);
    const { closed } = (await import(entry)) as { closed: { count: number } };
    const before = closed.count;

    expect(await runProjectAction("reset-external", entry, [])).toBe(0);
    expect(mem0.memories).toHaveLength(0);
    expect(mem0.requests.at(-1)?.method).toBe("DELETE");
    expect(printed).toEqual(["External memory reset."]);
    expect(closed.count).toBe(before + 1);
  });

  it("says a crew without external memory had nothing to reset, and says nothing as part of -a", async () => {
    vi.stubEnv("TEST_NO_EXTERNAL", "1");
    expect(await runProjectAction("reset-external", entry, [])).toBe(0);
    expect(printed).toEqual(["External memory: not enabled on crew 'crew', so there was nothing to reset."]);
    expect(await runProjectAction("reset-external", entry, ["quiet"])).toBe(0);
    expect(printed).toHaveLength(1);
    expect(mem0.requests).toHaveLength(0);
  });

  it("names createCrew() when the entry does not export it", async () => {
    const bare = join(process.env.CREWTS_STORAGE_DIR ?? import.meta.dirname, "bare-entry.mjs");
    writeFileSync(bare, "export function run() {}\n");
    const failure = runProjectAction("reset-external", bare, []);
    await expect(failure).rejects.toThrow(CliError);
    await expect(failure).rejects.toThrow(/does not export createCrew\(\)\. crewts reset-memories --external needs it/);
  });
});
