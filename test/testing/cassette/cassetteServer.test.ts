import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LLM, LLMBadRequestError } from "../../../src/index.js";
import { startCassetteServer, startMockOpenAIServer, type CassetteData, type CassetteServer, type MockOpenAIServer } from "../../../src/testing/index.js";
import { RECORD_KEY, runCrew, SCRIPT, type CrewRunResult } from "./crewScenario.js";

const started: { close(): Promise<void> }[] = [];
const track = <T extends { close(): Promise<void> }>(server: T): T => {
  started.push(server);
  return server;
};
afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.close()));
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "crewts-cassettes-"));
});

/** One user message to `llm`, its text back. */
const ask = async (llm: LLM, text: string): Promise<string> => (await llm.call([{ role: "user", content: text }])).text;

const readCassette = (path: string) => JSON.parse(readFileSync(path, "utf8")) as CassetteData;

/** A mock upstream that answers SCRIPT and refuses the first chat completion with a 429. */
async function upstream(): Promise<MockOpenAIServer> {
  // Requests 0 and 1 embed the knowledge and the first task's query; request 2 is the first chat call.
  return track(await startMockOpenAIServer({ responses: SCRIPT, faults: { 2: { status: 429, headers: { "retry-after-ms": "1" } } } }));
}

async function record(path: string): Promise<{ result: CrewRunResult; cassette: CassetteServer; mock: MockOpenAIServer }> {
  const mock = await upstream();
  const cassette = track(await startCassetteServer({ cassette: path, mode: "record", upstream: mock.url }));
  const result = await runCrew(cassette.url, RECORD_KEY);
  await cassette.close();
  await mock.close();
  return { result, cassette, mock };
}

describe("startCassetteServer with a crew over real provider code", () => {
  it("records streaming, tool calls, embeddings and a 429, then replays the run with the upstream gone", async () => {
    const path = join(dir, "crew.json");
    const { result, cassette, mock } = await record(path);
    expect(mock.requests[2]!.path).toBe("/v1/chat/completions");
    expect(result.tasks[0]).toBe("The product is 42.");
    expect(result.raw).toContain("Summary: six times seven is 42");
    expect(result.toolRuns).toEqual([[6, 7]]);
    expect(cassette.recorded).toBe(mock.requests.length);

    const data = readCassette(path);
    const paths = data.exchanges.map((e) => e.request.path);
    expect(paths).toContain("/v1/embeddings");
    expect(paths).toContain("/v1/messages");
    expect(data.exchanges.map((e) => e.response.status)).toContain(429);
    const chat = data.exchanges.filter((e) => e.request.path === "/v1/chat/completions" && e.response.status === 200);
    expect(chat.every((e) => e.response.events !== undefined && e.response.events.at(-1) === "data: [DONE]\n\n")).toBe(true);
    expect(chat[0]!.response.events!.join("")).toContain('"name":"multiplier"');
    // The 429 and the retry that succeeded are two exchanges of one identical request, kept in order.
    const first = data.exchanges.findIndex((e) => e.response.status === 429);
    expect(data.exchanges[first + 1]!.request).toEqual(data.exchanges[first]!.request);

    const replay = track(await startCassetteServer({ cassette: path, mode: "replay" }));
    const replayed = await runCrew(replay.url, "sk-some-other-key-entirely");
    expect(replayed).toEqual(result);
    expect(replay.unmatched).toEqual([]);
    expect(replay.replayed).toBe(data.exchanges.length);
  });

  it("never writes the key or an authorization header, and re-recording gives the same bytes", async () => {
    const path = join(dir, "crew.json");
    await record(path);
    const text = readFileSync(path, "utf8");
    expect(text).not.toContain(RECORD_KEY);
    expect(text.toLowerCase()).not.toContain("authorization");
    expect(text.toLowerCase()).not.toContain("x-api-key");
    // Readable and stable: pretty-printed with sorted keys, one exchange per entry.
    expect(text).toMatch(/^\{\n {2}"exchanges": \[\n {4}\{\n/);
    expect(text.endsWith("\n")).toBe(true);

    // The mock stamps every answer with the current time and the first recording was "made" at another;
    // an answer that differs only in ids and timestamps keeps the bytes already in the cassette.
    const older = text.replace(/"created": \d+/g, '"created": 1000').replace(/\\"created\\":\d+/g, '\\"created\\":1000');
    expect(older).not.toBe(text);
    writeFileSync(path, older);
    await record(path);
    expect(readFileSync(path, "utf8")).toBe(older);
    if (process.env.CASSETTE_PEEK) writeFileSync(process.env.CASSETTE_PEEK, older);
  });

  it("fails a changed prompt with an HTTP error that names the request and the closest recorded one", async () => {
    const path = join(dir, "crew.json");
    await record(path);
    const replay = track(await startCassetteServer({ cassette: path, mode: "replay" }));
    const failure = await runCrew(replay.url, RECORD_KEY, { firstTask: "What is 6 times 8?" }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LLMBadRequestError);
    expect((failure as Error).message).toMatch(/HTTP 400/);
    expect((failure as Error).message).toMatch(/has no answer for POST \/v1\/embeddings \(request #\d+\); closest recorded is exchange \d+/);
    const [mismatch] = replay.unmatched;
    expect(mismatch!.request.path).toBe("/v1/embeddings");
    expect(mismatch!.closest!.difference).toMatch(/^input\[0\] differs at character \d+: recorded .*6 times 7.*got .*6 times 8/);
  });

  it("auto mode replays what the cassette has and records only the missing exchange", async () => {
    const path = join(dir, "calls.json");
    const mock = track(await startMockOpenAIServer({ responses: ["first answer", "second answer"] }));
    const llmAt = (url: string) => new LLM({ model: "openai/gpt-4o-mini", baseURL: url, apiKey: RECORD_KEY, maxRetries: 0 });
    const first = track(await startCassetteServer({ cassette: path, mode: "record", upstream: mock.url }));
    expect(await ask(llmAt(first.url), "question one")).toBe("first answer");
    await first.close();
    const copy = join(dir, "calls-before.json");
    copyFileSync(path, copy);

    const auto = track(await startCassetteServer({ cassette: path, mode: "auto", upstream: mock.url }));
    const llm = llmAt(auto.url);
    expect(await ask(llm, "question one")).toBe("first answer");
    expect(await ask(llm, "question two")).toBe("second answer");
    await auto.close();
    expect([auto.replayed, auto.recorded, mock.requests.length]).toEqual([1, 1, 2]);
    const before = readCassette(copy).exchanges;
    const after = readCassette(path).exchanges;
    expect(after).toHaveLength(2);
    expect(after[0]).toEqual(before[0]);
    expect(JSON.stringify(after[1]!.request.body)).toContain("question two");
  });

  it("answers repeated identical requests in recorded order and fails one more clearly", async () => {
    const path = join(dir, "repeat.json");
    const mock = track(await startMockOpenAIServer({ responses: ["one", "two"] }));
    const rec = track(await startCassetteServer({ cassette: path, mode: "record", upstream: mock.url }));
    const recLLM = new LLM({ model: "openai/gpt-4o-mini", baseURL: rec.url, apiKey: RECORD_KEY, maxRetries: 0 });
    expect([await ask(recLLM, "same"), await ask(recLLM, "same")]).toEqual(["one", "two"]);
    await rec.close();
    await mock.close();

    const replay = track(await startCassetteServer({ cassette: path, mode: "replay" }));
    const llm = new LLM({ model: "openai/gpt-4o-mini", baseURL: replay.url, apiKey: "k-anything", maxRetries: 0 });
    expect([await ask(llm, "same"), await ask(llm, "same")]).toEqual(["one", "two"]);
    await expect(ask(llm, "same")).rejects.toThrow(/recorded 2 time\(s\) and all were used/);
    expect(replay.unmatched).toHaveLength(1);
  });
});
