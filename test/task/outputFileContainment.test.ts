import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Crew } from "../../src/crew/index.js";
import { OutputFilePathError, Task, TaskValidationError } from "../../src/task/index.js";
import { fakeAgent, final } from "./helpers.js";

// Each test works in its own project folder (the working directory) with a folder outside it.
let project: string;
let outside: string;
let startDir: string;
beforeEach(async () => {
  startDir = process.cwd();
  project = await realpath(await mkdtemp(join(tmpdir(), "crewts-project-")));
  outside = await realpath(await mkdtemp(join(tmpdir(), "crewts-outside-")));
  process.chdir(project);
});
afterEach(async () => {
  process.chdir(startDir);
  await rm(project, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

describe("outputFile paths from inputs", () => {
  it("refuses an absolute path given as an input, naming the task, the path and the fix", () => {
    const task = new Task({ name: "report", description: "d", expectedOutput: "x", outputFile: "{file}" });
    const target = join(outside, "stolen.md");
    let error: unknown;
    try {
      task.interpolateInputs({ file: target });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(OutputFilePathError);
    expect(error).toBeInstanceOf(TaskValidationError);
    expect(error).toMatchObject({ task: "report", path: target });
    expect((error as Error).message).toMatch(/task 'report'.*outside .*Give inputs that name a file inside/);
  });

  it("refuses '..' from inputs with the same error class", () => {
    const task = new Task({ name: "report", description: "d", expectedOutput: "x", outputFile: "reports/{name}.md" });
    expect(() => task.interpolateInputs({ name: "../../escape" })).toThrow(OutputFilePathError);
  });

  it("writes a relative path from inputs inside the working directory", async () => {
    const { agent } = fakeAgent([final("inside")]);
    const task = new Task({ description: "d", expectedOutput: "x", agent, outputFile: "{file}" });
    task.interpolateInputs({ file: "reports/a.md" });
    await task.executeSync();
    expect(await readFile(join(project, "reports", "a.md"), "utf8")).toBe("inside");
  });

  it("lets inputs fill a folder written in code, but not leave it", async () => {
    const { agent } = fakeAgent([final("chosen by code")]);
    const task = new Task({ description: "d", expectedOutput: "x", agent, outputFile: `${outside}/reports/{name}.md` });
    task.interpolateInputs({ name: "AI" });
    await task.executeSync();
    expect(await readFile(join(outside, "reports", "AI.md"), "utf8")).toBe("chosen by code");

    const elsewhere = await realpath(await mkdtemp(join(tmpdir(), "crewts-elsewhere-")));
    try {
      await symlink(elsewhere, join(outside, "reports", "jump"));
      const linked = new Task({ description: "d", expectedOutput: "x", agent: fakeAgent([final("no")]).agent, outputFile: `${outside}/reports/{name}.md` });
      linked.interpolateInputs({ name: "jump/x" });
      await expect(linked.executeSync()).rejects.toThrow(OutputFilePathError);
      expect(existsSync(join(elsewhere, "x.md"))).toBe(false);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it("refuses an input path outside the working directory in a crew kickoff", async () => {
    const { agent, llm } = fakeAgent([final("never")]);
    const task = new Task({ name: "report", description: "d", expectedOutput: "x", agent, outputFile: "{file}" });
    const crew = new Crew({ agents: [agent], tasks: [task] });
    await expect(crew.kickoff({ file: join(outside, "stolen.md") })).rejects.toThrow(OutputFilePathError);
    expect(llm.calls).toHaveLength(0);
    expect(existsSync(join(outside, "stolen.md"))).toBe(false);
  });
});

describe("outputFile and symbolic links", () => {
  it("refuses a folder link that leads outside the working directory", async () => {
    await symlink(outside, join(project, "out"));
    const { agent } = fakeAgent([final("secret")]);
    const task = new Task({ name: "report", description: "d", expectedOutput: "x", agent, outputFile: "out/report.md" });
    await expect(task.executeSync()).rejects.toThrow(/Refused outputFile "out\/report.md" of task 'report': a symbolic link/);
    expect(existsSync(join(outside, "report.md"))).toBe(false);
  });

  it("refuses a link deeper in the path, and a file that is itself a link outside", async () => {
    await mkdir(join(project, "a", "b"), { recursive: true });
    await symlink(outside, join(project, "a", "b", "c"));
    const deep = new Task({ description: "d", expectedOutput: "x", agent: fakeAgent([final("no")]).agent, outputFile: "a/b/c/d/report.md" });
    await expect(deep.executeSync()).rejects.toThrow(OutputFilePathError);
    expect(existsSync(join(outside, "d"))).toBe(false);

    await writeFile(join(outside, "victim.txt"), "keep me");
    await symlink(join(outside, "victim.txt"), join(project, "report.md"));
    const file = new Task({ description: "d", expectedOutput: "x", agent: fakeAgent([final("overwritten")]).agent, outputFile: "report.md" });
    await expect(file.executeSync()).rejects.toThrow(OutputFilePathError);
    expect(await readFile(join(outside, "victim.txt"), "utf8")).toBe("keep me");
  });

  it("refuses a dangling link whose target outside would be created", async () => {
    await symlink(join(outside, "created.txt"), join(project, "report.md"));
    const task = new Task({ description: "d", expectedOutput: "x", agent: fakeAgent([final("no")]).agent, outputFile: "report.md" });
    await expect(task.executeSync()).rejects.toThrow(OutputFilePathError);
    expect(existsSync(join(outside, "created.txt"))).toBe(false);
  });

  it("follows links that stay inside the working directory", async () => {
    await mkdir(join(project, "real"));
    await symlink(join(project, "real"), join(project, "alias"));
    const task = new Task({ description: "d", expectedOutput: "x", agent: fakeAgent([final("kept")]).agent, outputFile: "alias/report.md" });
    await task.executeSync();
    expect(await readFile(join(project, "real", "report.md"), "utf8")).toBe("kept");
  });

  it("writes a literal absolute path outside the working directory, as written in code", async () => {
    const task = new Task({ description: "d", expectedOutput: "x", agent: fakeAgent([final("literal")]).agent, outputFile: join(outside, "report.md") });
    task.interpolateInputs({ unused: "value" });
    await task.executeSync();
    expect(await readFile(join(outside, "report.md"), "utf8")).toBe("literal");
  });
});
