// `crewts serve` as users start it: the CLI finds the project, starts the project's process, and the
// server runs there (the project's createCrew() builds a crew per kickoff); SIGTERM to the CLI stops it
// gracefully.
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, describe, expect, it } from "vitest";

const repo = resolve(import.meta.dirname, "../..");
const tsx = createRequire(import.meta.url).resolve("tsx");
const project = mkdtempSync(join(tmpdir(), "crewts-serve-project-"));
afterAll(() => rmSync(project, { recursive: true, force: true }));

mkdirSync(join(project, "src"));
writeFileSync(join(project, "package.json"), JSON.stringify({ name: "serve_fixture", type: "module", crewts: { type: "crew" } }));
writeFileSync(
  join(project, "src", "main.ts"),
  `import { Agent, Crew, InMemoryTaskOutputStore, Task } from ${JSON.stringify(join(repo, "src/index.ts"))};
import { FakeLLM } from ${JSON.stringify(join(repo, "src/testing/index.ts"))};
export function createCrew() {
  const llm = new FakeLLM((messages) => "Haiku about " + (/Write about (\\w+)/.exec(messages.map((m) => m.content).join(" "))?.[1] ?? "?") + " in pid " + process.pid);
  const agent = new Agent({ role: "Poet", goal: "Write about {topic}", backstory: "Brief.", llm });
  const task = new Task({ description: "Write about {topic}", expectedOutput: "A haiku", agent });
  return new Crew({ agents: [agent], tasks: [task], taskOutputStore: new InMemoryTaskOutputStore() });
}
`,
);

describe("crewts serve", () => {
  it("serves the project's crew from the project's process and stops on SIGTERM", async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, CREWTS_SERVER_TOKEN: "cli-token" };
    delete env.CREWTS_REDIS_URL;
    const cli = spawn(process.execPath, ["--import", tsx, join(repo, "src/cli/main.ts"), "serve", "--port", "0"], { cwd: project, env, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    cli.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const lines = createInterface({ input: cli.stdout });
    const output: string[] = [];
    const url = await new Promise<string>((resolveUrl, reject) => {
      lines.on("line", (line) => {
        output.push(line);
        const found = /listening on (http:\/\/\S+) \(kickoffs run in this process\)/.exec(line);
        if (found) resolveUrl(found[1]!);
      });
      cli.once("exit", (code) => reject(new Error(`crewts serve exited with ${code}: ${stderr}`)));
    });
    const headers = { authorization: "Bearer cli-token", "content-type": "application/json" };
    expect((await fetch(`${url}/inputs`)).status).toBe(401);
    expect(await (await fetch(`${url}/inputs`, { headers })).json()).toEqual({ inputs: ["topic"] });
    const { kickoff_id: id } = (await (await fetch(`${url}/kickoff`, { method: "POST", headers, body: JSON.stringify({ inputs: { topic: "rain" } }) })).json()) as { kickoff_id: string };
    await (await fetch(`${url}/stream/${id}`, { headers })).text();
    const status = (await (await fetch(`${url}/status/${id}`, { headers })).json()) as { state: string; result: { raw: string } };
    expect(status.state).toBe("SUCCESS");
    // The crew ran in the project's process, not the CLI's.
    const pid = Number(/in pid (\d+)/.exec(status.result.raw)?.[1]);
    expect(status.result.raw).toMatch(/^Haiku about rain in pid \d+$/);
    expect(pid).not.toBe(cli.pid);

    const exited = new Promise<number | null>((r) => cli.once("exit", (code) => r(code)));
    cli.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(output.join("\n")).toMatch(/shutting down/);
  }, 60_000);
});
