import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import type { CliContext } from "../../src/cli/CliContext.js";
import { CliError, reportError } from "../../src/cli/CliError.js";
import { runCli } from "../../src/cli/program.js";
import { SQLiteTaskOutputStore, storageDir, TASK_OUTPUTS_DB_FILE } from "../../src/storage/index.js";

const pkg = JSON.parse(readFileSync("package.json", "utf8")) as CliContext["pkg"];
const ctx: CliContext = { cliEntry: join(process.cwd(), "src/cli/main.ts"), pkg };

/** Runs the CLI in-process and captures everything it prints. */
async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const log = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void (out += `${args.join(" ")}\n`));
  try {
    const code = await runCli(ctx, argv, { writeOut: (text) => void (out += text), writeErr: (text) => void (err += text) });
    return { code, out, err };
  } finally {
    log.mockRestore();
  }
}

const tempDirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "crewts-create-"));
  tempDirs.push(dir);
  return dir;
};

afterEach(() => vi.restoreAllMocks());
afterAll(() => tempDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe("crewts --help", () => {
  const commands = [
    [],
    ["create"],
    ["create", "crew"],
    ["create", "flow"],
    ["install"],
    ["run"],
    ["flow"],
    ["flow", "kickoff"],
    ["flow", "plot"],
    ["replay"],
    ["log-tasks-outputs"],
    ["train"],
    ["test"],
    ["reset-memories"],
    ["chat"],
    ["version"],
  ];
  it.each(commands.map((c) => [c.join(" ") || "(none)", c] as const))("works for %s", async (_name, command) => {
    const { code, out } = await cli(...command, "--help");
    expect(code).toBe(0);
    expect(out).toContain(`Usage: crewts${command.length ? ` ${command.join(" ")}` : ""}`);
  });

  it("lists every command of CrewAI's CLI and hides the internal one", async () => {
    const { out } = await cli("--help");
    for (const name of ["create", "install", "run", "flow", "replay", "log-tasks-outputs", "train", "test", "reset-memories", "chat", "version"]) expect(out).toContain(`  ${name}`);
    expect(out).not.toContain("__project");
  });

  it("shows reset-memories's -kn and -akn as CrewAI writes them", async () => {
    const { out } = await cli("reset-memories", "--help");
    expect(out).toMatch(/-kn, --knowledge/);
    expect(out).toMatch(/-akn, --agent-knowledge/);
    expect(out).toMatch(/-k, --kickoff-outputs/);
  });
});

describe("crewts usage errors exit 2 and say what to do", () => {
  it("no command shows the help", async () => {
    const { code, err } = await cli();
    expect(code).toBe(2);
    expect(err).toContain("Usage: crewts");
  });

  it("an unknown command suggests the right one", async () => {
    const { code, err } = await cli("rn");
    expect(code).toBe(2);
    expect(err).toMatch(/unknown command 'rn'/);
    expect(err).toMatch(/Did you mean run\?/);
  });

  it("replay without -t points at log-tasks-outputs", async () => {
    const { code, err } = await cli("replay");
    expect(code).toBe(2);
    expect(err).toMatch(/required option '-t, --task-id <id>' not specified/);
    expect(err).toContain("crewts log-tasks-outputs");
  });

  it("train and test check their numbers and file name", async () => {
    expect((await cli("train", "-n", "0")).err).toMatch(/give a whole number above 0/);
    expect((await cli("train", "-n", "x")).code).toBe(2);
    const pkl = await cli("train", "-f", "data.pkl");
    expect(pkl.code).toBe(2);
    expect(pkl.err).toMatch(/ending in \.json, e\.g\. -f data\.json/);
    expect((await cli("test", "-n", "-3")).code).toBe(2);
  });

  it("reset-memories needs a kind", async () => {
    const { code, err } = await cli("reset-memories");
    expect(code).toBe(2);
    expect(err).toMatch(/^Error: Say what to reset: -a for everything/);
  });
});

describe("crewts commands in-process", () => {
  it("version prints the package version", async () => {
    expect((await cli("version")).out).toBe(`crewts ${pkg.version}\n`);
    expect((await cli("--version")).out).toBe(`${pkg.version}\n`);
  });

  it("run outside a project says how to get one, in one line, exit 1", async () => {
    const { code, err } = await cli("run");
    expect(code).toBe(1);
    expect(err).toMatch(/^Error: No crewts project in .* cd into your project, or create one: crewts create crew <name>\n$/);
  });

  it("create crew writes a project, refuses an existing folder and a bad name", async () => {
    const dir = tempDir();
    // --crewts names the dependency (no tarball packed here; test/cli/projects.test.ts installs one that is).
    const created = await cli("create", "crew", "latest_ai_development", "--dir", dir, "--crewts", `^${pkg.version}`);
    expect(created.code).toBe(0);
    const root = join(dir, "latest_ai_development");
    for (const file of ["package.json", "src/config/agents.yaml", "src/config/tasks.yaml", "src/crew.ts", "src/main.ts", "src/offline.ts", ".env.example", "README.md", "tsconfig.json"]) {
      expect(existsSync(join(root, file)), file).toBe(true);
    }
    expect(readFileSync(join(root, "src/crew.ts"), "utf8")).toContain("export class LatestAiDevelopmentCrew extends CrewBase");
    expect(readFileSync(join(root, "src/config/tasks.yaml"), "utf8")).toContain("{topic}");
    const packageJson = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    expect(packageJson.dependencies.crewts).toBe(`^${pkg.version}`);
    expect(packageJson.devDependencies.tsx).toBeDefined();
    expect(packageJson.crewts).toEqual({ type: "crew", entry: "src/main.ts" });
    expect(created.out).toContain("npm install");

    const again = await cli("create", "crew", "Latest_AI_Development", "--dir", dir);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/already exists and is not empty: choose another name/);

    const bad = await cli("create", "flow", "../escape", "--dir", dir);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/cannot be a project name: start with a letter/);
  });

  it("create flow writes a flow with a crew inside", async () => {
    const dir = tempDir();
    expect((await cli("create", "flow", "PoemFlow", "--dir", dir, "--crewts", "file:../crewts")).code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, "poemflow", "package.json"), "utf8")).dependencies.crewts).toBe("file:../crewts");
    const main = readFileSync(join(dir, "poemflow", "src/main.ts"), "utf8");
    expect(main).toContain("export class PoemFlow extends Flow<PoemState, string>");
    expect(main).toContain("new PoemCrew(");
    expect(existsSync(join(dir, "poemflow", "src/crews/poem/config/tasks.yaml"))).toBe(true);
  });

  it("log-tasks-outputs prints the stored ids, descriptions and outputs, and reset-memories -k clears them", async () => {
    expect((await cli("log-tasks-outputs")).out).toMatch(/^No task outputs stored yet/);
    const store = new SQLiteTaskOutputStore(join(storageDir(), TASK_OUTPUTS_DB_FILE));
    const output = (description: string, raw: string) => ({ description, raw, agent: "Researcher" });
    await store.add({ taskId: "id-1", taskIndex: 0, expectedOutput: "points", output: output("Research AI", "short"), inputs: { topic: "AI" } });
    await store.add({ taskId: "id-2", taskIndex: 1, expectedOutput: "report", output: output("Write\nthe report", "x".repeat(400)), inputs: { topic: "AI" } });
    await store.add({ taskId: "id-3", taskIndex: 2, expectedOutput: "text", output: output("Echo", "\x1b]0;pwned\x07Done\x1b[2J\r!"), inputs: { topic: "AI" } });
    await store.close();

    const { code, out } = await cli("log-tasks-outputs");
    expect(code).toBe(0);
    expect(out).toContain('inputs {"topic":"AI"}');
    expect(out).toContain("Task 1: id-1\n  Description: Research AI\n  Agent: Researcher\n  Output: short");
    expect(out).toContain("Task 2: id-2\n  Description: Write the report");
    expect(out).toContain("(400 characters; --full shows all)");
    expect(out).toContain("crewts replay -t <task id>");
    // A model's terminal controls are not printed (the \r is whitespace to the one-line preview).
    expect(out).toContain("Task 3: id-3\n  Description: Echo\n  Agent: Researcher\n  Output: Done !");
    const full = (await cli("log-tasks-outputs", "--full")).out;
    expect(full).toContain("x".repeat(400));
    expect(full).toContain("Output: Done!");
    // eslint-disable-next-line no-control-regex
    for (const text of [out, full]) expect(text).not.toMatch(/[\x07\x1b\r]/);
    const json = JSON.parse((await cli("log-tasks-outputs", "--json")).out) as { taskId: string }[];
    expect(json.map((r) => r.taskId)).toEqual(["id-1", "id-2", "id-3"]);

    const reset = await cli("reset-memories", "-kn", "-k");
    expect(reset.code).toBe(0);
    expect(reset.out).toContain("Latest kickoff task outputs reset.");
    expect(reset.out).toMatch(/Crew knowledge: not enabled or empty in this project/);
    expect((await cli("log-tasks-outputs")).out).toMatch(/^No task outputs stored yet/);
  });
});

describe("error reports", () => {
  const report = (error: unknown) => {
    let text = "";
    const code = reportError(error, (t) => void (text += t));
    return { code, text };
  };

  it("a user mistake is one line, with its exit code", () => {
    expect(report(new CliError("Do this instead.", 2))).toEqual({ code: 2, text: "Error: Do this instead.\n" });
    class CrewValidationError extends Error {
      override name = "CrewValidationError";
    }
    expect(report(new CrewValidationError("Crew must include at least one task."))).toEqual({ code: 1, text: "Error: Crew must include at least one task.\n" });
  });

  it("an unexpected error gets the DEBUG hint; DEBUG=crewts shows the stack", () => {
    const unexpected = report(new TypeError("x is not a function"));
    expect(unexpected.code).toBe(1);
    expect(unexpected.text).toBe("Error: x is not a function\nThis was not expected. Run again with DEBUG=crewts to see the stack trace, and report it if it looks like a bug in crewts.\n");
    vi.stubEnv("DEBUG", "crewts");
    try {
      expect(report(new TypeError("boom")).text).toMatch(/^Error: boom\nTypeError: boom\n\s+at /);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
