import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The crewts CLI of this working tree, run with tsx. */
export const CLI = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const SRC = pathToFileURL(fileURLToPath(new URL("../../src/", import.meta.url))).href;

/**
 * A crew project in a temp folder for `crewts mcp serve`: two tasks about {topic} ({audience}
 * defaults to "engineers"), answered by a FakeLLM; the project process writes its pid to pids.txt.
 */
export function servedProject(): { dir: string; pids: () => number[] } {
  const dir = mkdtempSync(join(tmpdir(), "crewts-mcp-serve-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "served_crew", type: "module", crewts: { entry: "main.ts", type: "crew" } }));
  writeFileSync(
    join(dir, "main.ts"),
    `import { appendFileSync } from "node:fs";
import { Agent, Crew, Task } from ${JSON.stringify(`${SRC}index.ts`)};
import { FakeLLM } from ${JSON.stringify(`${SRC}testing/index.ts`)};
appendFileSync(new URL("./pids.txt", import.meta.url), process.pid + "\\n");
console.log("stray output that must not reach the MCP stream");

export const inputs = { audience: "engineers" };

export function createCrew() {
  const llm = new FakeLLM((messages) => {
    const text = messages.map((m) => m.content).join("\\n");
    return "Report on " + (/(?:Research|Write about) (\\w+)/.exec(text)?.[1] ?? "?") + " for " + (/for (\\w+)\\./.exec(text)?.[1] ?? "?");
  });
  const analyst = new Agent({ role: "Analyst", goal: "Explain {topic}", backstory: "You explain things.", llm });
  const research = new Task({ description: "Research {topic} for {audience}.", expectedOutput: "Notes", agent: analyst });
  const report = new Task({ description: "Write about {topic} for {audience}.", expectedOutput: "A report", agent: analyst, context: [research] });
  return new Crew({ name: "briefing", agents: [analyst], tasks: [research, report] });
}
`,
  );
  return {
    dir,
    pids: () =>
      readFileSync(join(dir, "pids.txt"), "utf8")
        .split("\n")
        .filter(Boolean)
        .map(Number),
  };
}
