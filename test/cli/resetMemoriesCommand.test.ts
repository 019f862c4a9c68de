import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resetMemories } from "../../src/cli/commands/resetMemories.js";
import { EntityMemory, LongTermMemory, ShortTermMemory, storageDir } from "../../src/index.js";

async function remember(): Promise<void> {
  const short = new ShortTermMemory();
  const long = new LongTermMemory();
  const entity = new EntityMemory();
  await short.save("The Falcon engine has 845 kN of thrust");
  await long.save({ taskDescription: "Research the Falcon engine", agentRole: "Engine analyst", expectedOutput: "Facts", quality: 8, suggestions: ["Give thrust in kN"] });
  await entity.save({ name: "Acme Rockets", type: "organization", description: "Builds the Falcon engine" });
  for (const memory of [short, long, entity]) await memory.close();
}

async function found(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const [name, memory] of [["short", new ShortTermMemory()], ["long", new LongTermMemory()], ["entity", new EntityMemory()]] as const) {
    counts[name] = (await memory.search("Falcon engine thrust Acme", { scoreThreshold: 0 })).length;
    await memory.close();
  }
  return counts;
}

describe("crewts reset-memories on the memories' files", () => {
  it("clears one kind with its flag and every kind with -a, journal files included", async () => {
    await remember();
    expect(await found()).toEqual({ short: 1, long: 1, entity: 1 });
    const lines: string[] = [];
    await resetMemories({ short: true }, (line) => lines.push(line));
    expect(lines).toEqual(["Short-term memory reset."]);
    expect(await found()).toEqual({ short: 0, long: 1, entity: 1 });

    await resetMemories({ all: true }, (line) => lines.push(line));
    expect(lines).toContain("Long-term memory reset.");
    expect(lines).toContain("Entity memory reset.");
    for (const file of ["long_term_memory.db", "entity_memory.db"]) {
      for (const suffix of ["", "-wal", "-shm"]) expect(existsSync(join(storageDir(false), file + suffix))).toBe(false);
    }
    expect(await found()).toEqual({ short: 0, long: 0, entity: 0 });
  });

  it("hands --external to the project's crew, and leaves it out of -a when the project has no createCrew()", async () => {
    const calls: boolean[] = [];
    const resetExternal = async (quiet: boolean) => {
      calls.push(quiet);
      return 0;
    };
    const lines: string[] = [];
    expect(await resetMemories({ external: true }, (line) => lines.push(line), resetExternal)).toBe(0);
    expect(calls).toEqual([false]);
    expect(lines).toEqual([]);
    // This checkout is not a crew project with createCrew(): -a resets the files only.
    await resetMemories({ all: true }, (line) => lines.push(line), resetExternal);
    expect(calls).toEqual([false]);
    // Without a way into the project, --external says where the memory lives.
    await resetMemories({ external: true }, (line) => lines.push(line));
    expect(lines.at(-1)).toMatch(/External memory lives in its provider: reset it there, or run crewts reset-memories --external in the project/);
  });
});
