import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = join(import.meta.dirname, "../..");

describe("npm run demo", () => {
  it("says on its first line that it runs offline, then runs the two-agent crew over real HTTP", async () => {
    const env = { ...process.env };
    for (const key of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OLLAMA_HOST", "CREWTS_MODEL", "MODEL"]) delete env[key];
    const { stdout } = await run(process.execPath, ["--import", "tsx", "examples/demo.ts"], { cwd: root, env });
    const lines = stdout.trim().split("\n");
    expect(lines[0]).toMatch(/running offline against the built-in mock OpenAI-compatible server/);
    // The researcher uses its tool; the writer gets the research as context (its facts come from it).
    expect(stdout).toMatch(/\[tool\] search_notes\(\{"query":"TypeScript"\}\)/);
    // The guardrail rejects the first brief and passes the second.
    expect(stdout).toMatch(/\[guardrail\] rejected: The summary has \d+ words[\s\S]*\[guardrail\] passed/);
    const brief = JSON.parse(/Brief \(structured output\):\n(\{[\s\S]*?\n\})/.exec(stdout)![1]!) as { title: string; summary: string; facts: string[] };
    expect(brief.facts).toHaveLength(3);
    expect(brief.facts[1]).toBe("TypeScript was released by Microsoft in 2012.");
    expect(brief.summary.split(/\s+/).length).toBeLessThanOrEqual(25);
    expect(stdout).toMatch(/over 4 LLM calls/);
  });
});
