import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Task, TaskValidationError } from "../../src/task/index.js";
import { fakeAgent, final } from "./helpers.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "crewts-task-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("outputFile", () => {
  it.each([
    ["../secret.txt", "path traversal"],
    ["a/../../b.txt", "path traversal"],
    ["~/notes.txt", "'~'"],
    ["$HOME/notes.txt", "shell special characters"],
    ["out|tee.txt", "shell special characters"],
    ["out;rm.txt", "shell special characters"],
    ["out&.txt", "shell special characters"],
    ["out>x.txt", "shell special characters"],
    ["out<x.txt", "shell special characters"],
    ["out`id`.txt", "shell special characters"],
    ["out/{bad name}.txt", "Invalid template variable name: bad name"],
    ["out/{invalid-name}.txt", "Invalid template variable name: invalid-name"],
    ["out/{1st}.txt", "Invalid template variable name: 1st"],
    ["out/{}.txt", "Invalid template variable name: "],
  ])("rejects %s at construction", (path, reason) => {
    expect(() => new Task({ description: "d", expectedOutput: "x", outputFile: path })).toThrow(TaskValidationError);
    expect(() => new Task({ description: "d", expectedOutput: "x", outputFile: path })).toThrow(reason);
  });

  it("writes the raw output, creating missing directories by default", async () => {
    const { agent } = fakeAgent([final("# Report\nAll good.")]);
    const path = join(dir, "nested", "deeper", "report.md");
    await new Task({ description: "d", expectedOutput: "x", agent, outputFile: path }).executeSync();
    expect(await readFile(path, "utf8")).toBe("# Report\nAll good.");
  });

  it("writes pretty JSON when the output is parsed", async () => {
    const { agent } = fakeAgent([final('{"name": "Ada", "age": 36}')]);
    const path = join(dir, "person.json");
    await new Task({ description: "d", expectedOutput: "x", agent, outputFile: path, outputSchema: z.object({ name: z.string(), age: z.number() }) }).executeSync();
    expect(await readFile(path, "utf8")).toBe(JSON.stringify({ name: "Ada", age: 36 }, null, 2));
  });

  it("fails clearly when the directory is missing and createDirectory is false", async () => {
    const { agent } = fakeAgent([final("text"), final("text")]);
    const missing = join(dir, "missing", "out.txt");
    const task = new Task({ description: "d", expectedOutput: "x", agent, outputFile: missing, createDirectory: false });
    await expect(task.executeSync()).rejects.toThrow(/does not exist and createDirectory is false/);
    const existing = join(dir, "out.txt");
    await new Task({ description: "d", expectedOutput: "x", agent, outputFile: existing, createDirectory: false }).executeSync();
    expect(await readFile(existing, "utf8")).toBe("text");
  });

  it("writes to the interpolated path", async () => {
    const { agent } = fakeAgent([final("about AI")]);
    const task = new Task({ description: "About {topic}", expectedOutput: "x", agent, outputFile: join(dir, "{topic}.md") });
    task.interpolateInputs({ topic: "AI" });
    await task.executeSync();
    expect(await readFile(join(dir, "AI.md"), "utf8")).toBe("about AI");
  });
});
