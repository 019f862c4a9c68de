import { Console } from "node:console";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, Crew, LLM, LLMError, Task } from "../../src/index.js";
import { AISDKEmbedder, resolveEmbedder } from "../../src/knowledge/embedders/index.js";
import { hideSecrets, revealSecrets } from "../../src/llm/hideSecrets.js";
import { ExternalMemory } from "../../src/memory/ExternalMemory.js";
import { FakeLLM, startMockOpenAIServer } from "../../src/testing/index.js";
import { embeddingsResponse, parseEmbeddingsRequest } from "../../src/testing/mockServer/embeddingsProtocol.js";
import { startFakeMem0, type FakeMem0Server } from "../memory/mem0Server.js";

// Shaped like no known key pattern, so only the configured secret itself can catch it.
const EMBED_KEY = "zq-embed-secret-0123456789";

/** The places `secret` shows in `text`, with a little context (empty when it shows nowhere). */
function leaks(text: string, secret: string): string[] {
  const found: string[] = [];
  for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + 1)) found.push(text.slice(Math.max(0, at - 80), at + secret.length));
  return found;
}

/** Everything a user could print or serialize of `values`, as one string. */
function printed(...values: unknown[]): string {
  const chunks: string[] = [];
  const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => (chunks.push(chunk.toString()), done()) });
  const console = new Console({ stdout: sink, stderr: sink, colorMode: false });
  for (const value of values) console.log(value);
  return [...values.map((value) => JSON.stringify(value)), ...values.map((value) => inspect(value, { depth: Infinity })), chunks.join("")].join("\n");
}

// An OpenAI embeddings endpoint that records the Authorization header exactly (the mock server redacts it).
let embedServer: Server;
let embedURL: string;
const authorizations: (string | undefined)[] = [];
let mem0: FakeMem0Server;

beforeAll(async () => {
  embedServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      authorizations.push(req.headers.authorization);
      const request = parseEmbeddingsRequest(JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown);
      if (typeof request === "string") throw new Error(request);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(embeddingsResponse(request.model ?? "m", request.input, 8)));
    });
  });
  await new Promise<void>((resolve) => embedServer.listen(0, "127.0.0.1", resolve));
  embedURL = `http://127.0.0.1:${(embedServer.address() as AddressInfo).port}/v1`;
  mem0 = await startFakeMem0();
});
afterAll(async () => {
  await new Promise((resolve) => embedServer.close(resolve));
  embedServer.closeAllConnections();
  await mem0.close();
});

describe("hideSecrets", () => {
  it("keeps credential-named properties readable by name but out of every listing, and revealSecrets brings them back", () => {
    const hidden = hideSecrets({ provider: "openai", config: { api_key: EMBED_KEY, model: "m" }, headers: { Authorization: `Bearer ${EMBED_KEY}` }, apiKey: EMBED_KEY });
    expect(leaks(printed(hidden, { ...hidden }, Object.entries(hidden.config)), EMBED_KEY)).toEqual([]);
    expect(leaks(inspect(hidden, { showHidden: true, depth: Infinity }), EMBED_KEY)).toEqual([]);
    expect(hidden.config.api_key).toBe(EMBED_KEY);
    expect(hidden.apiKey).toBe(EMBED_KEY);
    expect(revealSecrets(hidden)).toEqual({ provider: "openai", config: { api_key: EMBED_KEY, model: "m" }, headers: { Authorization: `Bearer ${EMBED_KEY}` }, apiKey: EMBED_KEY });
  });

  it("leaves class instances and objects with methods as they are", () => {
    const embedder = { apiKey: EMBED_KEY, dimensions: 2, embed: () => [[1, 0]] };
    const llm = new FakeLLM(["x"]);
    const hidden = hideSecrets({ embedder: { provider: "custom", config: { embedder } }, llm, onStep: () => undefined });
    expect(hidden.embedder.config.embedder).toBe(embedder);
    expect(hidden.llm).toBe(llm);
  });
});

describe("API keys of embedders and Mem0", () => {
  it("appear in no JSON, inspect or console output of agents, crews and memories, and are still sent", async () => {
    const agent = new Agent({
      role: "writer",
      goal: "write",
      backstory: "writes",
      llm: new FakeLLM(() => "Final Answer: done"),
      embedder: { provider: "openai-compatible", config: { model: "emb", api_key: EMBED_KEY, base_url: embedURL } } as never,
    });
    const task = new Task({ description: "Write a line.", expectedOutput: "A line.", agent });
    const external = new ExternalMemory({ embedderConfig: { provider: "mem0", config: { api_key: mem0.apiKey, base_url: mem0.url, user_id: "u1", infer: false } } });
    const crew = new Crew({
      agents: [agent],
      tasks: [task],
      embedder: { provider: "openai-compatible", model: "emb", baseURL: embedURL, apiKey: EMBED_KEY },
      externalMemory: external,
      memoryConfig: { provider: "mem0", config: { api_key: mem0.apiKey, base_url: mem0.url, user_id: "u2" } },
    });
    const withMemoryConfig = new Crew({ agents: [agent.copy()], tasks: [new Task({ description: "Write.", expectedOutput: "A line.", agent })], memoryConfig: { provider: "mem0", config: { api_key: mem0.apiKey, base_url: mem0.url, user_id: "u3" } } });

    const output = printed(agent, crew, withMemoryConfig, external, agent.options, crew.options, crew.copy(), agent.copy(), crew.embedder);
    expect(output).toContain("writer");
    expect(leaks(output, EMBED_KEY)).toEqual([]);
    expect(leaks(output, mem0.apiKey)).toEqual([]);

    // The keys still reach the servers: from the options as stored (what copies are built from) and from copies.
    authorizations.length = 0;
    await resolveEmbedder(agent.options.embedder as never).embed(["hello"]);
    await resolveEmbedder(crew.options.embedder as never).embed(["hello"]);
    await crew.copy().embedder?.embed(["hello"]);
    const rebuilt = new Crew({ ...crew.options, agents: [new Agent({ ...agent.options })] });
    await rebuilt.embedder?.embed(["hello"]);
    expect(authorizations).toEqual(Array.from({ length: 4 }, () => `Bearer ${EMBED_KEY}`));
    mem0.requests.length = 0;
    await withMemoryConfig.kickoff();
    await external.save("saved with the key");
    await external.flush();
    expect(mem0.requests.length).toBeGreaterThanOrEqual(2);
    expect(mem0.requests.every((request) => request.headers.authorization === `Token ${mem0.apiKey}`)).toBe(true);
    await Promise.all([crew.close(), withMemoryConfig.close(), rebuilt.close()]);
  });
});

describe("error bodies that echo the key", () => {
  it("are redacted everywhere in the error an LLM call throws, error.cause.cause.text included", async () => {
    const echo = `not json, your key was ${EMBED_KEY}`;
    const server = await startMockOpenAIServer({
      faults: { 0: { body: echo }, 1: { status: 401, body: JSON.stringify({ error: { message: `bad key ${EMBED_KEY}` }, key: EMBED_KEY }) } },
    });
    try {
      const llm = new LLM({ model: "openai-compatible/m", baseURL: server.url, apiKey: EMBED_KEY, maxRetries: 0 });
      for (let i = 0; i < 2; i++) {
        const error = await llm.call([{ role: "user", content: "hi" }]).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(LLMError);
        expect(leaks(printed(error) + inspect(error, { depth: Infinity, showHidden: true }), EMBED_KEY)).toEqual([]);
      }
      expect(server.requests.every((request) => request.headers.authorization === "[redacted]")).toBe(true);
    } finally {
      await server.close();
    }
  });

  it("are redacted in the errors of an embedder", async () => {
    const server = await startMockOpenAIServer({ faults: { 0: { body: `oops ${EMBED_KEY}` }, 1: { status: 400, body: `{"detail":"bad ${EMBED_KEY}"}` } } });
    try {
      const embedder = new AISDKEmbedder({ provider: "openai-compatible", model: "m", baseURL: server.url, apiKey: EMBED_KEY, maxRetries: 0 });
      for (let i = 0; i < 2; i++) {
        const error = await embedder.embed(["x"]).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(LLMError);
        expect(leaks(printed(error), EMBED_KEY)).toEqual([]);
      }
    } finally {
      await server.close();
    }
  });
});
