import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { runCli } from "../../src/cli/program.js";
import { startMockOpenAIServer, type MockOpenAIServer } from "../../src/testing/index.js";

vi.setConfig({ testTimeout: 60_000 });

const repo = resolve(import.meta.dirname, "../..");
const ctx = { cliEntry: join(repo, "src", "cli", "main.ts"), pkg: { version: "0.0.0-test" } };
const KEY = "sk-cli-cassette-secret-4242";

// A project whose test() makes one OpenAI call with no baseURL and no key of its own: both come from
// the env `crewts test` gives its process. It writes the answer where the test can read it.
const main = `
import { writeFileSync } from "node:fs";
import { LLM } from ${JSON.stringify(pathToFileURL(join(repo, "src", "index.ts")).href)};
export async function test(iterations: number, model: string) {
  const llm = new LLM({ model: "openai/gpt-4o-mini", maxRetries: 0 });
  const result = await llm.call([{ role: "user", content: "score the crew " + iterations + " time(s) with " + model }]);
  writeFileSync(process.env.CASSETTE_TEST_OUT!, result.text);
}
`;

let project: string;
let out: string;
let mock: MockOpenAIServer | undefined;
const cwd = process.cwd();
const errors: string[] = [];
const crewts = (...args: string[]) => runCli(ctx, args, { writeErr: (text) => void errors.push(text) });

beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), "crewts-cli-cassette-"));
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "cassette-project", type: "module", crewts: { entry: "main.ts" } }));
  writeFileSync(join(project, "main.ts"), main);
  out = join(project, "answer.txt");
  for (const name of ["OPENAI_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "CI", "CREWTS_CASSETTE_MODE"]) vi.stubEnv(name, undefined);
  vi.stubEnv("CASSETTE_TEST_OUT", out);
  vi.spyOn(console, "log").mockImplementation(() => {});
  process.chdir(project);
  errors.length = 0;
});
afterEach(async () => {
  process.chdir(cwd);
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  await mock?.close();
  mock = undefined;
});

describe("crewts test --record / --replay", () => {
  it("records the project's provider calls through a cassette, then replays them with no key and no upstream", async () => {
    mock = await startMockOpenAIServer({ responses: ["Task 1 scored 9"] });
    // The upstream comes from the project's .env, as a user with a compatible server would set it.
    writeFileSync(join(project, ".env"), `OPENAI_BASE_URL=${mock.url}\nOPENAI_API_KEY=${KEY}\n`);
    expect(await crewts("test", "-n", "1", "--record"), errors.join("")).toBe(0);
    expect(readFileSync(out, "utf8")).toBe("Task 1 scored 9");
    expect(mock.requests).toHaveLength(1);
    const cassette = readFileSync(join(project, "test", "cassettes", "crewts-test.json"), "utf8");
    expect(cassette).toContain("score the crew 1 time(s) with openai/gpt-4o-mini");
    expect(cassette).not.toContain(KEY);

    await mock.close();
    writeFileSync(join(project, ".env"), "");
    writeFileSync(out, "");
    expect(await crewts("test", "-n", "1", "--replay"), errors.join("")).toBe(0);
    expect(readFileSync(out, "utf8")).toBe("Task 1 scored 9");
  });

  it("fails a replay whose calls changed, naming the request and the closest recorded one", async () => {
    mock = await startMockOpenAIServer({ responses: ["Task 1 scored 9"] });
    vi.stubEnv("OPENAI_BASE_URL", mock.url);
    vi.stubEnv("OPENAI_API_KEY", KEY);
    mkdirSync(join(project, "cassettes"));
    expect(await crewts("test", "-n", "1", "--record", "--cassette", "cassettes/eval.json"), errors.join("")).toBe(0);
    vi.stubEnv("OPENAI_BASE_URL", undefined);
    vi.stubEnv("OPENAI_API_KEY", undefined);
    expect(await crewts("test", "-n", "2", "--replay", "--cassette", "cassettes/eval.json")).toBe(1);
    expect(errors.join("")).toMatch(/^Error: cassette .*eval\.json has no answer for POST \/v1\/chat\/completions \(request #1\); closest recorded is exchange 0 .*recorded "score the crew 1/);
  });

  it("refuses --record with --replay, and replay of a cassette never recorded", async () => {
    expect(await crewts("test", "--record", "--replay")).toBe(1);
    expect(errors.join("")).toContain("--record and --replay cannot be used together");
    errors.length = 0;
    expect(await crewts("test", "--replay")).toBe(1);
    expect(errors.join("")).toMatch(/crewts-test\.json does not exist, so there is nothing to replay/);
  });
});
