import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LLM, LLMBadRequestError } from "../../../src/index.js";
import {
  CASSETTE_DUMMY_API_KEY,
  CassetteError,
  CassetteMismatchError,
  cassettePath,
  resolveCassetteMode,
  startMockOpenAIServer,
  withCassette,
  type MockOpenAIServer,
} from "../../../src/testing/index.js";
import { cassetteEnv } from "../../../src/testing/withCassette.js";

const KEY = "sk-with-cassette-secret-77x";
let dir: string;
let mock: MockOpenAIServer | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "crewts-with-cassette-"));
  for (const name of ["OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "CREWTS_CASSETTE_MODE", "CI"]) vi.stubEnv(name, undefined);
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await mock?.close();
  mock = undefined;
});

const ask = async (llm: LLM, text: string): Promise<string> => (await llm.call([{ role: "user", content: text }])).text;
// No baseURL and no key: both come from the env withCassette sets, as in a user's crew.
const openai = () => new LLM({ model: "openai/gpt-4o-mini", maxRetries: 0 });
const claude = () => new LLM({ model: "anthropic/claude-3-5-haiku-latest", maxTokens: 64, maxRetries: 0 });

/** Records "hello" (OpenAI) and "bonjour" (Anthropic) through withCassette, the mock standing in for the real APIs. */
async function recordGreetings(): Promise<void> {
  mock = await startMockOpenAIServer({ responses: ["hi there", "salut"] });
  vi.stubEnv("OPENAI_BASE_URL", mock.url);
  vi.stubEnv("ANTHROPIC_BASE_URL", mock.url);
  vi.stubEnv("OPENAI_API_KEY", KEY);
  vi.stubEnv("ANTHROPIC_API_KEY", KEY);
  const answers = await withCassette(
    "greetings",
    async (cassette) => {
      expect(process.env.OPENAI_BASE_URL).toBe(cassette.url);
      expect(process.env.ANTHROPIC_BASE_URL).toBe(cassette.url);
      return [await ask(openai(), "hello"), await ask(claude(), "bonjour")];
    },
    { mode: "record", dir },
  );
  expect(answers).toEqual(["hi there", "salut"]);
  // The recording went to where the env pointed before, and the env is back as it was.
  expect(mock.requests.map((r) => r.path)).toEqual(["/v1/chat/completions", "/v1/messages"]);
  expect(process.env.OPENAI_BASE_URL).toBe(mock.url);
  await mock.close();
  vi.unstubAllEnvs();
  for (const name of ["OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"]) vi.stubEnv(name, undefined);
}

describe("withCassette", () => {
  it("points OpenAI and Anthropic at the cassette, then replays with no key and no upstream", async () => {
    await recordGreetings();
    const text = readFileSync(join(dir, "greetings.json"), "utf8");
    expect(text).not.toContain(KEY);
    const replayed = await withCassette(
      "greetings",
      async (cassette) => {
        expect(cassette.mode).toBe("replay");
        // Providers refuse to start without a key; replay needs none, so a placeholder is set.
        expect(process.env.OPENAI_API_KEY).toBe(CASSETTE_DUMMY_API_KEY);
        return [await ask(openai(), "hello"), await ask(claude(), "bonjour")];
      },
      { mode: "replay", dir },
    );
    expect(replayed).toEqual(["hi there", "salut"]);
    expect(process.env.OPENAI_API_KEY).toBeUndefined();
    expect(process.env.OPENAI_BASE_URL).toBeUndefined();
  });

  it("rejects with every mismatch even when the test swallowed the LLM error, and restores the env", async () => {
    await recordGreetings();
    vi.stubEnv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1");
    let swallowed: unknown;
    const run = withCassette(
      "greetings",
      async () => {
        swallowed = await ask(openai(), "hello, changed").catch((error: unknown) => error);
        return "finished";
      },
      { mode: "replay", dir },
    );
    const error = await run.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CassetteMismatchError);
    expect((error as CassetteMismatchError).message).toMatch(/no answer for POST \/v1\/chat\/completions \(request #1\); closest recorded is exchange 0 .*messages\[0\]\.content differs at character 5: recorded "hello", got "hello, changed"/);
    expect((error as CassetteMismatchError).mismatches).toHaveLength(1);
    expect(swallowed).toBeInstanceOf(LLMBadRequestError);
    expect(process.env.OPENAI_BASE_URL).toBe("http://127.0.0.1:9/v1");
  });

  it("restores the env when the callback throws, and refuses overlapping calls", async () => {
    vi.stubEnv("ANTHROPIC_BASE_URL", "http://example.invalid/v1");
    const failing = withCassette(
      "empty",
      async () => {
        await expect(withCassette("other", () => 1, { mode: "auto", dir })).rejects.toThrow(/withCassette\("other"\) started while withCassette\("empty"\) is running/);
        throw new Error("the test failed");
      },
      { mode: "record", dir },
    );
    await expect(failing).rejects.toThrow("the test failed");
    expect(process.env.ANTHROPIC_BASE_URL).toBe("http://example.invalid/v1");
    expect(process.env.OPENAI_BASE_URL).toBeUndefined();
    // Record mode leaves a cassette even for a test that made no call.
    expect(JSON.parse(readFileSync(join(dir, "empty.json"), "utf8"))).toEqual({ exchanges: [], version: 1 });
    expect(existsSync(join(dir, "other.json"))).toBe(false);
  });

  it("refuses to replay a cassette that was never recorded, naming the file and the fix", async () => {
    await expect(withCassette("missing", () => 1, { mode: "replay", dir })).rejects.toThrow(/missing\.json does not exist.*mode "record" or "auto"/);
    expect(process.env.OPENAI_BASE_URL).toBeUndefined();
  });

  it("takes the mode from the option, then CREWTS_CASSETTE_MODE, then replay on CI and auto elsewhere", () => {
    expect(resolveCassetteMode(undefined, {})).toBe("auto");
    expect(resolveCassetteMode(undefined, { CI: "true" })).toBe("replay");
    expect(resolveCassetteMode(undefined, { CI: "true", CREWTS_CASSETTE_MODE: "record" })).toBe("record");
    expect(resolveCassetteMode("auto", { CREWTS_CASSETTE_MODE: "record" })).toBe("auto");
    expect(() => resolveCassetteMode(undefined, { CREWTS_CASSETTE_MODE: "replya" })).toThrow(CassetteError);
    expect(() => resolveCassetteMode(undefined, { CREWTS_CASSETTE_MODE: "replya" })).toThrow(/CREWTS_CASSETTE_MODE must be one of record, replay, auto; got "replya"/);
  });

  it("in replay, sets placeholder keys only for the providers the cassette recorded, and never over a real key", () => {
    const exchange = (path: string) => ({ request: { method: "POST", path, body: {} }, response: { status: 200, headers: {} } });
    const url = "http://127.0.0.1:1/v1";
    const routes = { OPENAI_BASE_URL: url, ANTHROPIC_BASE_URL: url };
    const anthropicOnly = { url, mode: "replay" as const, exchanges: [exchange("/v1/messages")] };
    // A project that picks its model by which key is set must pick the provider it recorded with.
    expect(cassetteEnv(anthropicOnly, {})).toEqual({ ...routes, ANTHROPIC_API_KEY: CASSETTE_DUMMY_API_KEY });
    expect(cassetteEnv({ ...anthropicOnly, exchanges: [exchange("/v1/embeddings")] }, {})).toEqual({ ...routes, OPENAI_API_KEY: CASSETTE_DUMMY_API_KEY });
    expect(cassetteEnv({ ...anthropicOnly, exchanges: [] }, { OPENAI_API_KEY: "sk-real" })).toEqual({ ...routes, ANTHROPIC_API_KEY: CASSETTE_DUMMY_API_KEY });
    expect(cassetteEnv({ ...anthropicOnly, mode: "record" }, {})).toEqual(routes);
  });

  it("keeps cassettes under test/cassettes (or the dir given) and refuses names that leave it", () => {
    expect(resolve(cassettePath("crew-basic"))).toBe(resolve("test/cassettes/crew-basic.json"));
    expect(cassettePath("crews/research", "/tmp/c")).toBe("/tmp/c/crews/research.json");
    expect(() => cassettePath("../escape")).toThrow(/relative name/);
    expect(() => cassettePath("/etc/passwd")).toThrow(/relative name/);
  });
});
