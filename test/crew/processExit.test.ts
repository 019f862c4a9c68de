import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");

// Everything a kickoff may start (timers of maxExecutionTime and maxRpm, model latency, SQLite clients
// of the task output store, the log file, the verbose printer, async tasks, planning, a manager,
// copies, a replay, a failed kickoff) must be gone when it resolves: the script ends without process.exit, so Node
// exits only if nothing is left.
const script = `
import { Agent, Crew, Task, Process } from "./src/index.ts";
import { FakeLLM } from "./src/testing/index.ts";
const answer = () => "Thought: done\\nFinal Answer: ok";
const plans = () => JSON.stringify({ list_of_plans_per_task: [{ task: "a", plan: "p1" }, { task: "b", plan: "p2" }, { task: "c", plan: "p3" }] });
const agent = (role) => new Agent({ role, goal: "g", backstory: "b", llm: new FakeLLM(answer, { latencyMs: 5 }), maxExecutionTime: 60, maxRpm: 100 });
const a = agent("Researcher {topic}"), b = agent("Writer");
const tasks = [
  new Task({ description: "Research {topic}", expectedOutput: "e", agent: a, asyncExecution: true }),
  new Task({ description: "Research more", expectedOutput: "e", agent: b, asyncExecution: true }),
  new Task({ description: "Write", expectedOutput: "e", agent: b }),
];
const crew = new Crew({ agents: [a, b], tasks, maxRpm: 50, planning: true, planningLLM: new FakeLLM(plans), outputLogFile: process.env.LOG_FILE });
await crew.kickoff({ topic: "cats" });
await crew.replay(tasks[2].id);
await crew.kickoffForEach([{ topic: "a" }, { topic: "b" }, { topic: "c" }], { concurrency: 2 });
const manager = new FakeLLM(["Thought: x\\nAction: Delegate work to coworker\\nAction Input: {\\"task\\": \\"t\\", \\"context\\": \\"c\\", \\"coworker\\": \\"Writer\\"}", answer()]);
await new Crew({ agents: [b], tasks: [new Task({ description: "Do", expectedOutput: "e" })], process: Process.hierarchical, managerLLM: manager, verbose: true }).kickoff();
const broken = new Agent({ role: "Broken", goal: "g", backstory: "b", llm: new FakeLLM(() => new Error("down")), maxRetryLimit: 0, maxExecutionTime: 60 });
const slow = agent("Slow");
await new Crew({ agents: [broken, slow], tasks: [
  new Task({ description: "Slow", expectedOutput: "e", agent: slow, asyncExecution: true }),
  new Task({ description: "Fails", expectedOutput: "e", agent: broken }),
] }).kickoff().catch(() => undefined);
console.log("done");
`;

describe("a finished kickoff", () => {
  it("lets the process exit by itself", async () => {
    const dir = await mkdtemp(join(tmpdir(), "crewts-exit-"));
    try {
      const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
        cwd: root,
        env: { ...process.env, CREWTS_STORAGE_DIR: dir, LOG_FILE: join(dir, "log.jsonl") },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      let doneAt: number | undefined;
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes("done")) doneAt ??= Date.now();
      });
      child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
      // A kill after 30 s keeps a leak from hanging the suite; the assertion below is what fails it.
      const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      const code = await new Promise<number | null>((done) => child.on("close", (c) => done(c)));
      clearTimeout(killer);
      const exitedAt = Date.now();

      expect(stderr).not.toMatch(/Error/);
      expect(stdout).toContain("done");
      expect(code).toBe(0);
      // Startup time varies with the machine's load; what matters is the time from the end of the work to the exit.
      expect(exitedAt - doneAt!).toBeLessThan(3_000);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 40_000);
});
