// End to end, as a newcomer works: build and pack crewts from this working tree, create a crew
// project and a flow project in a temp folder, install crewts into them from the tarball, and drive
// them with the crewts binary offline (no API key: the generated projects use the mock server).
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

vi.setConfig({ testTimeout: 90_000 });

const REPO = process.cwd();
const work = mkdtempSync(join(tmpdir(), "crewts-projects-"));
const crewDir = join(work, "latest_ai_development");
const flowDir = join(work, "poem_flow");

// Offline and isolated: no provider configured, storage under a private data directory (the
// default per-project folder, so run and log-tasks-outputs must agree on it without help).
const env: NodeJS.ProcessEnv = { ...process.env, XDG_DATA_HOME: join(work, "data"), NO_COLOR: "1" };
for (const key of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OLLAMA_HOST", "MODEL", "CREWTS_MODEL", "CREWTS_STORAGE_DIR", "DEBUG"]) delete env[key];

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

function sh(file: string, args: string[], cwd: string, timeoutMs = 120_000, extraEnv: NodeJS.ProcessEnv = {}): Promise<Result> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env: { ...env, ...extraEnv }, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The project's own crewts binary, as `npx crewts` runs it. */
const crewts = (project: string, ...args: string[]): Promise<Result> => sh(join(project, "node_modules", ".bin", "crewts"), args, project);

async function must(result: Promise<Result>, what: string): Promise<Result> {
  const r = await result;
  if (r.code !== 0) throw new Error(`${what} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  return r;
}

beforeAll(async () => {
  // As from a fresh clone: crewts is in no registry, so create packs the built crewts into each
  // project (file:crewts-<version>.tgz) and a plain npm install works.
  await must(sh("npm", ["run", "build"], REPO), "npm run build");
  const cli = join(REPO, "dist", "cli", "main.js");
  await must(sh("node", [cli, "create", "crew", "latest_ai_development", "--dir", work], work), "create crew");
  await must(sh("node", [cli, "create", "flow", "poem_flow", "--dir", work], work), "create flow");
  const install = ["install", "--prefer-offline", "--no-audit", "--no-fund"];
  await Promise.all([must(sh("npm", install, crewDir), "npm install (crew)"), must(sh("npm", install, flowDir), "npm install (flow)")]);
}, 240_000);

// Two installed projects weigh a few hundred megabytes.
// Removed asynchronously, with room for a slow disk: the hook must not fail a run whose tests passed.
afterAll(() => rm(work, { recursive: true, force: true, maxRetries: 3 }), 180_000);

const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);

describe("a created crew project", () => {
  it("depends on the crewts that created it, packed next to it, and links to no registry page", () => {
    const version = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string }).version;
    for (const dir of [crewDir, flowDir]) {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { dependencies: Record<string, string> };
      expect(pkg.dependencies.crewts).toBe(`file:crewts-${version}.tgz`);
      expect(existsSync(join(dir, `crewts-${version}.tgz`))).toBe(true);
      expect(readFileSync(join(dir, "README.md"), "utf8")).not.toContain("npmjs.com");
      expect(existsSync(join(dir, "node_modules", "crewts", "dist", "index.js"))).toBe(true);
    }
  });

  it("runs offline with crewts run, saying so on its first line, and prints the answer once", async () => {
    const { code, stdout, stderr } = await crewts(crewDir, "run");
    expect(code, stderr).toBe(0);
    expect(stdout.split("\n")[0]).toMatch(/^Running offline against the built-in mock server/);
    expect(stdout).toContain("## Review the context");
    expect(stdout.split("## Review the context").length - 1).toBe(1);
    expect(readFileSync(join(crewDir, "report.md"), "utf8")).toContain("Written offline by the mock model");
  });

  it("lists the stored task outputs, from the project folder or below it, and replays from one", async () => {
    const listed = await sh(join(crewDir, "node_modules", ".bin", "crewts"), ["log-tasks-outputs"], join(crewDir, "src"));
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/Task 1: [0-9a-f-]{36}\n {2}Description: Conduct a thorough research about AI LLMs\./);
    expect(listed.stdout).toMatch(/Task 2: [0-9a-f-]{36}\n {2}Description: Review the context you got/);
    expect(listed.stdout).toContain("Agent: AI LLMs Reporting Analyst");

    const records = JSON.parse((await crewts(crewDir, "log-tasks-outputs", "--json")).stdout) as { taskId: string; raw: string }[];
    expect(records).toHaveLength(2);
    const replayed = await crewts(crewDir, "replay", "-t", records[1]!.taskId);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(replayed.stdout).toContain("## Review the context");

    const unknown = await crewts(crewDir, "replay", "-t", "no-such-task");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^Error: .*no-such-task.*crewts log-tasks-outputs/m);
    noStack(unknown.stderr);
  });

  it("tests the crew offline, and resets the stored outputs", async () => {
    const tested = await crewts(crewDir, "test", "-n", "1");
    expect(tested.code, tested.stderr).toBe(0);
    expect(tested.stdout).toMatch(/Task 1 +\| 8\.0/);

    const reset = await crewts(crewDir, "reset-memories", "-a");
    expect(reset.code).toBe(0);
    expect(reset.stdout).toContain("Latest kickoff task outputs reset.");
    expect(reset.stdout).toMatch(/Short-term memory, .* not enabled or empty in this project/);
    expect((await crewts(crewDir, "log-tasks-outputs")).stdout).toMatch(/^No task outputs stored yet/);
  });

  it("reports a YAML mistake with the file, the line and the key, without a stack trace", async () => {
    const file = join(crewDir, "src", "config", "tasks.yaml");
    const original = readFileSync(file, "utf8");
    const line = original.split("\n").indexOf("  agent: reporting_analyst") + 1;
    writeFileSync(file, original.replace("agent: reporting_analyst", "agent: reporter"));
    try {
      const { code, stderr } = await crewts(crewDir, "run");
      expect(code).toBe(1);
      expect(stderr).toContain(`Error: src/config/tasks.yaml:${line}: task "reporting_task": agent "reporter" is not defined in agents.yaml (known: researcher, reporting_analyst)`);
      noStack(stderr);
    } finally {
      writeFileSync(file, original);
    }
  });

  it("reports an error in the project's own code with its file and line, not as a crewts bug", async () => {
    const file = join(crewDir, "src", "crew.ts");
    const original = readFileSync(file, "utf8");
    const line = original.split("\n").indexOf("  @agent") + 1;
    // The second @agent (line + 5) keeps the first one right, so the line of the typo is the first.
    writeFileSync(file, original.replace("  @agent\n", "  @agnet\n"));
    try {
      const { code, stderr } = await crewts(crewDir, "run");
      expect(code).toBe(1);
      expect(stderr).toContain("Error: ReferenceError: agnet is not defined");
      expect(stderr).toMatch(new RegExp(`at src/crew\\.ts:${line}:\\d+ \\(in this project's code\\)`));
      expect(stderr).toContain(`${line} | @agnet`);
      expect(stderr).not.toContain("bug in crewts");
    } finally {
      writeFileSync(file, original);
    }
  });

  it("names the environment variable a bad MODEL came from, not agents.yaml", async () => {
    const { code, stderr } = await sh(join(crewDir, "node_modules", ".bin", "crewts"), ["run"], crewDir, 60_000, { MODEL: "foo/bar" });
    expect(code).toBe(1);
    expect(stderr).toContain('The environment variable MODEL is invalid: model "foo/bar" has provider "foo" that crewts does not know.');
    expect(stderr).not.toContain("agents.yaml");
    noStack(stderr);
  });

  it("says crewts flow kickoff is for flow projects", async () => {
    const { code, stderr } = await crewts(crewDir, "flow", "kickoff");
    expect(code).toBe(1);
    expect(stderr).toContain("latest_ai_development is a crew project");
    expect(stderr).toContain("run the crew with crewts run");
  });

  it("type-checks with the project's own TypeScript", async () => {
    const { code, stdout } = await sh(join(crewDir, "node_modules", ".bin", "tsc"), ["--noEmit", "-p", "."], crewDir);
    expect(code, stdout).toBe(0);
  });
});

describe("outside a project", () => {
  it("log-tasks-outputs and reset-memories -a fail and say to run them inside a crewts project", async () => {
    const outside = join(work, "outside");
    mkdirSync(outside, { recursive: true });
    const bin = join(crewDir, "node_modules", ".bin", "crewts");
    for (const args of [["log-tasks-outputs"], ["reset-memories", "-a"]]) {
      const { code, stderr } = await sh(bin, args, outside);
      expect(code, args.join(" ")).toBe(1);
      expect(stderr).toContain(`crewts ${args[0]} works on a project's stored data`);
      expect(stderr).toContain("Run it inside a crewts project");
    }
  });
});

describe("a created flow project", () => {
  it("runs offline with crewts run and crewts flow kickoff", async () => {
    const run = await crewts(flowDir, "run");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split("\n")[0]).toMatch(/^Running offline against the built-in mock server/);
    expect(run.stdout).toContain("Saved to poem.txt");
    expect(readFileSync(join(flowDir, "poem.txt"), "utf8")).toContain("crewts");
    const kickoff = await crewts(flowDir, "flow", "kickoff");
    expect(kickoff.code, kickoff.stderr).toBe(0);
  });

  it("writes the HTML plot with crewts flow plot", async () => {
    const { code, stdout, stderr } = await crewts(flowDir, "flow", "plot");
    expect(code, stderr).toBe(0);
    const path = join(flowDir, "crewts_flow.html");
    expect(stdout).toContain(`Flow plot written to ${path}`);
    const html = readFileSync(path, "utf8");
    expect(html).toMatch(/<html/i);
    expect(html).toContain("generateSentenceCount");

    mkdirSync(join(work, "plots"), { recursive: true });
    const custom = await crewts(flowDir, "flow", "plot", "-o", join(work, "plots", "flow.html"));
    expect(custom.code, custom.stderr).toBe(0);
    expect(readdirSync(join(work, "plots"))).toEqual(["flow.html"]);
  });

  it("type-checks with the project's own TypeScript", async () => {
    const { code, stdout } = await sh(join(flowDir, "node_modules", ".bin", "tsc"), ["--noEmit", "-p", "."], flowDir);
    expect(code, stdout).toBe(0);
  });
});

describe("crewts chat under a real terminal (tmux)", () => {
  it("asks for the inputs, runs the crew, answers a follow-up question and quits on exit", async () => {
    const tmux = await sh("tmux", ["-V"], work);
    if (tmux.code !== 0) throw new Error("tmux is needed for this test and is not installed: apt-get install -y tmux (bash .ci/run installs it).");
    const socket = `crewts-test-${process.pid}`;
    const t = (...args: string[]) => sh("tmux", ["-L", socket, ...args], crewDir);
    const screen = async () => (await t("capture-pane", "-p", "-t", "chat", "-S", "-200")).stdout;
    const waitFor = async (pattern: RegExp, what: string): Promise<string> => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const text = await screen();
        if (pattern.test(text)) return text;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the terminal shows:\n${text}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    // A private tmux server started by this process gets this environment (offline, private storage).
    await must(t("new-session", "-d", "-s", "chat", "-x", "140", "-y", "60", `${join(crewDir, "node_modules", ".bin", "crewts")} chat; echo CHAT_EXIT=$?; sleep 600`), "tmux new-session");
    try {
      await waitFor(/topic\?\s*\n.*AI LLMs/, "the topic prompt");
      await t("send-keys", "-t", "chat", "AI agents", "Enter");
      await waitFor(/current_year\?/, "the current_year prompt");
      await t("send-keys", "-t", "chat", "Enter");
      const result = await waitFor(/Ask about the result/, "the result and the question prompt");
      expect(result).toContain("Conduct a thorough research about AI agents");
      await t("send-keys", "-t", "chat", "What research was done about agents?", "Enter");
      const answered = await waitFor(/From the results: .*research about AI agents/, "the answer");
      expect(answered).toMatch(/Answer/);
      await t("send-keys", "-t", "chat", "exit", "Enter");
      const done = await waitFor(/CHAT_EXIT=\d+/, "the end of the chat");
      expect(done).toContain("Chat ended.");
      expect(done).toContain("CHAT_EXIT=0");
    } finally {
      await t("kill-server");
    }
  }, 120_000);
});

describe("interactive commands under a real terminal (tmux)", () => {
  /** Runs `command` in a private tmux session in the crew project; returns helpers to type and to wait for text. */
  async function terminal(name: string, command: string) {
    const socket = `crewts-test-${name}-${process.pid}`;
    const t = (...args: string[]) => sh("tmux", ["-L", socket, ...args], crewDir);
    const screen = async () => (await t("capture-pane", "-p", "-t", name, "-S", "-200")).stdout;
    const waitFor = async (pattern: RegExp, what: string): Promise<string> => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const text = await screen();
        if (pattern.test(text)) return text;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the terminal shows:\n${text}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    await must(t("new-session", "-d", "-s", name, "-x", "160", "-y", "60", `${command}; echo EXIT=$?; sleep 600`), "tmux new-session");
    return { keys: (...keys: string[]) => t("send-keys", "-t", name, ...keys), waitFor, close: () => t("kill-server") };
  }
  const bin = () => join(crewDir, "node_modules", ".bin", "crewts");

  it("Ctrl-C at a chat prompt ends the chat with exit code 130", async () => {
    const chat = await terminal("chatc", `${bin()} chat`);
    try {
      await chat.waitFor(/topic\?/, "the topic prompt");
      await chat.keys("C-c");
      const done = await chat.waitFor(/EXIT=\d+/, "the end of the chat");
      expect(done).toContain("EXIT=130");
    } finally {
      await chat.close();
    }
  }, 60_000);

  it("train asks for feedback on each result and says where it saved what the agents learned", async () => {
    const train = await terminal("train", `${bin()} train -n 1 -f trained_data.json`);
    try {
      // One prompt per task output; the prompt waits at the bottom of the screen with nothing typed after it.
      for (let answered = 0; ; answered++) {
        const text = await train.waitFor(/press Enter if it is good\): *\s*$|EXIT=\d+/, "a feedback prompt or the end");
        if (/EXIT=\d+/.test(text)) break;
        await train.keys("Use more numbers", "Enter");
        await train.waitFor(new RegExp(`(good\\): Use more numbers[\\s\\S]*){${answered + 1}}`), "the answer on screen");
      }
      const done = await train.waitFor(/EXIT=\d+/, "the end of training");
      expect(done).toContain("EXIT=0");
      expect(done).toContain(`Saved what the agents learned to ${join(crewDir, "trained_data.json")}`);
      expect(existsSync(join(crewDir, "trained_data.json"))).toBe(true);
    } finally {
      await train.close();
    }
  }, 90_000);
});

describe("the installed binary", () => {
  it("answers --help for every command", async () => {
    const commands = [[], ["create", "crew"], ["create", "flow"], ["run"], ["flow", "kickoff"], ["flow", "plot"], ["replay"], ["log-tasks-outputs"], ["train"], ["test"], ["reset-memories"], ["chat"], ["version"]];
    const results = await Promise.all(commands.map((command) => crewts(crewDir, ...command, "--help")));
    results.forEach((r, i) => {
      expect(r.code, commands[i]!.join(" ")).toBe(0);
      expect(r.stdout).toContain("Usage: crewts");
    });
  });

  it("loads only commander and its own small modules at start-up", () => {
    const installed = join(crewDir, "node_modules", "crewts", "dist", "cli", "main.js");
    const source = readFileSync(installed, "utf8");
    expect(source.startsWith("#!/usr/bin/env node\n")).toBe(true);
    const imports = [...source.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]!);
    const external = imports.filter((spec) => !spec.startsWith("node:") && !spec.startsWith("."));
    expect(external).toEqual(["commander"]);
    const chunks = imports.filter((spec) => spec.startsWith("."));
    for (const chunk of chunks) {
      const text = readFileSync(join(installed, "..", chunk), "utf8");
      expect([...text.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]).filter((s) => !s!.startsWith("node:"))).toEqual([]);
    }
    expect(existsSync(installed)).toBe(true);
  });
});
