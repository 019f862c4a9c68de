import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = join(import.meta.dirname, "../..");

describe("npm run demo", () => {
  it("says on its first line that it runs offline, then runs an agent with a tool over real HTTP", async () => {
    const env = { ...process.env };
    for (const key of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OLLAMA_HOST", "CREWTS_MODEL", "MODEL"]) delete env[key];
    const { stdout } = await run(process.execPath, ["--import", "tsx", "examples/demo.ts"], { cwd: root, env });
    const lines = stdout.trim().split("\n");
    expect(lines[0]).toMatch(/running offline against the built-in mock OpenAI-compatible server/);
    expect(stdout).toMatch(/\[tool\] word_stats\(.*\) -> \{"words":10,"characters":65,"longest":"TypeScript"\}/);
    expect(stdout).toContain('Final answer: The sentence has 10 words and 65 characters; its longest word is "TypeScript".');
    expect(stdout).toMatch(/over 2 LLM calls/);
  });
});
