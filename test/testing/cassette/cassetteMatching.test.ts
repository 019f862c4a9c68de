import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LLM } from "../../../src/index.js";
import { CassetteError, startCassetteServer, startMockOpenAIServer, type CassetteData, type CassetteServerOptions } from "../../../src/testing/index.js";

const started: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.close()));
});
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "crewts-cassette-match-"));
});

async function start(options: CassetteServerOptions) {
  const server = await startCassetteServer(options);
  started.push(server);
  return server;
}
async function mock(responses: string[]) {
  const server = await startMockOpenAIServer({ responses });
  started.push(server);
  return server;
}
const post = (url: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url + path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
const chat = (content: string, extra: Record<string, unknown> = {}) => ({ model: "gpt-4o-mini", messages: [{ role: "user", content }], ...extra });
const answerOf = async (response: Response) => ((await response.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;

describe("cassette matching and storage", () => {
  it("ignores per-run fields by default, and more with ignoreFields and normalize", async () => {
    const path = join(dir, "m.json");
    const upstream = await mock(["dated answer"]);
    const match = { ignoreFields: ["seed"], normalize: (body: unknown) => JSON.parse(JSON.stringify(body).replace(/\d{4}-\d{2}-\d{2}/g, "<date>")) as unknown };
    const rec = await start({ cassette: path, mode: "record", upstream: upstream.url, match });
    const recorded = await post(rec.url, "/chat/completions", chat("Today is 2026-11-24.", { user: "run-1", seed: 1, stream_options: { include_usage: true } }));
    expect(await answerOf(recorded)).toBe("dated answer");
    await rec.close();
    const stored = (JSON.parse(readFileSync(path, "utf8")) as CassetteData).exchanges[0]!.request.body as Record<string, unknown>;
    expect(stored).toEqual({ messages: [{ content: "Today is <date>.", role: "user" }], model: "gpt-4o-mini" });

    const replay = await start({ cassette: path, mode: "replay", match });
    expect(await answerOf(await post(replay.url, "/chat/completions", chat("Today is 2027-01-02.", { user: "run-2", seed: 99 })))).toBe("dated answer");
    // Without the custom rules the date counts again.
    const strict = await start({ cassette: path, mode: "replay" });
    const refused = await post(strict.url, "/chat/completions", chat("Today is 2027-01-02."));
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/messages\[0\]\.content differs at character 9: recorded "Today is <date>\.", got "Today is 2027-01-02\."/);
  });

  it("answers an unmatched Anthropic request in Anthropic's error shape, which the provider code surfaces", async () => {
    const path = join(dir, "empty.json");
    writeFileSync(path, JSON.stringify({ version: 1, exchanges: [] }));
    const replay = await start({ cassette: path, mode: "replay" });
    const llm = new LLM({ model: "anthropic/claude-3-5-haiku-latest", baseURL: replay.url, apiKey: "k-anything", maxTokens: 32, maxRetries: 0 });
    await expect(llm.call([{ role: "user", content: "hi" }])).rejects.toThrow(/HTTP 400.*has no answer for POST \/v1\/messages \(request #1\): the cassette is empty/);
    expect(replay.unmatched[0]!.request.path).toBe("/v1/messages");
  });

  it("blanks a key a body echoes, and leaves no temp file behind", async () => {
    const path = join(dir, "k.json");
    const upstream = await mock(["ok"]);
    const rec = await start({ cassette: path, mode: "record", upstream: upstream.url });
    const key = "sk-echoed-in-a-body-31337";
    await post(rec.url, "/chat/completions", chat(`my key is ${key}`), { authorization: `Bearer ${key}`, cookie: "session=abcdef123456" });
    await rec.close();
    const text = readFileSync(path, "utf8");
    expect(text).not.toContain(key);
    expect(text).not.toContain("abcdef123456");
    expect(text).toContain("my key is [redacted]");
    expect(readdirSync(dir)).toEqual(["k.json"]);
  });

  it("says which upstream it could not reach, and records nothing", async () => {
    const path = join(dir, "down.json");
    const rec = await start({ cassette: path, mode: "record", upstream: { openai: "http://127.0.0.1:9/v1" } });
    const response = await post(rec.url, "/chat/completions", chat("hi"));
    expect(response.status).toBe(502);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/could not reach the upstream http:\/\/127\.0\.0\.1:9 for POST \/v1\/chat\/completions/);
    await rec.close();
    expect(rec.recorded).toBe(0);
    expect((JSON.parse(readFileSync(path, "utf8")) as CassetteData).exchanges).toEqual([]);
  });

  it("refuses a malformed cassette or mode, naming the file and the fix", async () => {
    const path = join(dir, "bad.json");
    writeFileSync(path, "{ not json");
    await expect(startCassetteServer({ cassette: path, mode: "auto" })).rejects.toThrow(/bad\.json is not valid JSON .*delete it and record again/);
    writeFileSync(path, JSON.stringify({ version: 1, exchanges: [{ request: { method: "POST" }, response: {} }] }));
    await expect(startCassetteServer({ cassette: path, mode: "replay" })).rejects.toThrow(/bad\.json is malformed: exchange 0: request needs a method and a path/);
    await expect(startCassetteServer({ cassette: path, mode: "play" as never })).rejects.toThrow(CassetteError);
  });
});
