import { describe, expect, it } from "vitest";
import { eventBus } from "../../../src/events/index.js";
import type { CrewtsEvent } from "../../../src/events/types.js";
import { AISDKEmbedder } from "../../../src/knowledge/embedders/AISDKEmbedder.js";
import { EmbedderError } from "../../../src/knowledge/embedders/Embedder.js";
import { FunctionEmbedder } from "../../../src/knowledge/embedders/FunctionEmbedder.js";
import { resolveEmbedder } from "../../../src/knowledge/embedders/resolveEmbedder.js";
import { LLMAuthenticationError, LLMBadRequestError, LLMServerError } from "../../../src/llm/errors.js";
import { mockEmbedding } from "../../../src/testing/index.js";
import { mockServerPerTest } from "../../testing/mockServerPerTest.js";

const start = mockServerPerTest();

const cosine = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * (b[i] ?? 0), 0);

describe("the mock server's /v1/embeddings", () => {
  it("answers deterministic, normalised vectors in which texts sharing words are close", () => {
    const cat = mockEmbedding("the cat sat on the mat");
    expect(cat).toHaveLength(64);
    expect(Math.hypot(...cat)).toBeCloseTo(1, 6);
    expect(mockEmbedding("the cat sat on the mat")).toEqual(cat);
    expect(cosine(cat, mockEmbedding("a cat on a mat"))).toBeGreaterThan(cosine(cat, mockEmbedding("quarterly revenue grew strongly")));
  });

  it("serves real AI SDK clients (openai and openai-compatible) with usage, honouring dimensions", async () => {
    const server = await start();
    const openai = new AISDKEmbedder({ provider: "openai", model: "text-embedding-3-small", baseURL: server.url, apiKey: "sk-test", dimensions: 16 });
    const vectors = await openai.embed(["hello world", "hello there"]);
    expect(vectors).toEqual([mockEmbedding("hello world", 16), mockEmbedding("hello there", 16)]);
    expect(openai.usage).toMatchObject({ promptTokens: 4, totalTokens: 4, successfulRequests: 1 });
    expect(server.requests[0]).toMatchObject({ path: "/v1/embeddings", body: { model: "text-embedding-3-small", dimensions: 16 } });
    expect(server.requests[0]?.headers.authorization).toBe("[redacted]");

    const compatible = resolveEmbedder({ provider: "openai-compatible", model: "local-embed", baseURL: server.url });
    expect(compatible.dimensions).toBeUndefined();
    expect(await compatible.embed(["hello world"])).toEqual([mockEmbedding("hello world")]);
    expect(compatible.dimensions).toBe(64);
  });

  it("batches requests and retries a failed batch alone", async () => {
    const server = await start({ faults: { 1: { status: 500 } } });
    const embedder = new AISDKEmbedder({ provider: "ollama", model: "nomic-embed-text", baseURL: server.url, batchSize: 2, dimensions: 64, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
    const texts = ["a b", "c d", "e f", "g h", "i"];
    const vectors = await embedder.embed(texts);
    expect(vectors).toEqual(texts.map((text) => mockEmbedding(text)));
    // 3 batches, the second tried twice.
    expect(server.requests.map((r) => (r.body as { input: string[] }).input)).toEqual([["a b", "c d"], ["e f", "g h"], ["e f", "g h"], ["i"]]);
    expect(embedder.usage.successfulRequests).toBe(3);
  });

  it("maps failures to LLM errors: not retried on 400, given up after maxRetries on 500", async () => {
    const server = await start({ faults: { 0: { status: 400 }, 1: { status: 500 }, 2: { status: 500 } } });
    // The older top-level maxRetries still works next to retry's delays.
    const embedder = new AISDKEmbedder({ provider: "openai-compatible", model: "m", baseURL: server.url, maxRetries: 1, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
    await expect(embedder.embed(["x"])).rejects.toBeInstanceOf(LLMBadRequestError);
    const error: unknown = await embedder.embed(["x"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LLMServerError);
    expect((error as LLMServerError).attempts).toBe(2);
  });

  it("takes retry options like LLMOptions and emits embedder_call_retry, without the API key", async () => {
    const server = await start({ faults: { 0: { status: 503 }, 2: { status: 500 }, 3: { status: 500 } } });
    const embedder = new AISDKEmbedder({ provider: "openai", model: "text-embedding-3-small", baseURL: server.url, apiKey: "sk-secret-123", dimensions: 8, maxRetries: 5, retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 5 } });
    // Retried once with nobody listening (no event is built).
    expect(await embedder.embed(["x"])).toEqual([mockEmbedding("x", 8)]);
    const events: CrewtsEvent<"embedder_call_retry">[] = [];
    eventBus.on("embedder_call_retry", (event) => {
      events.push(event);
    });
    const started = Date.now();
    const error: unknown = await embedder.embed(["y"]).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(1000);
    // retry.maxRetries (1) wins over maxRetries (5).
    expect((error as LLMServerError).attempts).toBe(2);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "embedder_call_retry", embedder: "openai/text-embedding-3-small", attempt: 1, status: 500 });
    expect(events[0]?.delayMs).toBeLessThanOrEqual(5);
    expect(events[0]?.error).toMatch(/500/);
    expect(JSON.stringify(events)).not.toContain("sk-secret-123");
  });

  it("rejects bad retry options", () => {
    expect(() => new AISDKEmbedder({ provider: "ollama", model: "m", retry: { baseDelayMs: -1 } })).toThrow(/retry\.baseDelayMs/);
  });

  it("rejects a bad request body with 400", async () => {
    const server = await start();
    const response = await fetch(`${server.url}/embeddings`, { method: "POST", body: JSON.stringify({ input: [1, 2] }) });
    expect(response.status).toBe(400);
  });
});

describe("resolveEmbedder", () => {
  it("reads provider/model strings and knows common dimensions", () => {
    const openai = resolveEmbedder("openai/text-embedding-3-small");
    expect(openai.id).toBe("openai/text-embedding-3-small");
    expect(openai.dimensions).toBe(1536);
    expect(resolveEmbedder("ollama/nomic-embed-text").dimensions).toBe(768);
  });

  it("passes an Embedder through and explains bad specs", () => {
    const fn = new FunctionEmbedder({ embed: (texts) => texts.map(() => [1, 0]), dimensions: 2 });
    expect(resolveEmbedder(fn)).toBe(fn);
    expect(() => resolveEmbedder("anthropic/claude")).toThrow(/provider\/model.*openai, ollama, openai-compatible/);
    expect(() => resolveEmbedder("text-embedding-3-small")).toThrow(EmbedderError);
    expect(() => resolveEmbedder({ provider: "openai-compatible", model: "m" })).toThrow(/baseURL is required/);
  });

  it("takes any object with embed(texts) and dimensions, and CrewAI's custom provider shape", async () => {
    class WordCounter {
      readonly dimensions = 3;
      calls = 0;
      async embed(texts: string[]): Promise<number[][]> {
        this.calls++;
        return texts.map((t) => [t.length, t.split(" ").length, 1]);
      }
    }
    const counter = new WordCounter();
    const plain = resolveEmbedder(counter);
    expect(await plain.embed(["a b", "c"])).toEqual([[3, 2, 1], [1, 1, 1]]);
    expect(counter.calls).toBe(1);
    expect(plain.dimensions).toBe(3);
    expect(plain.id).toMatch(/^custom\/[0-9a-f]{16}$/);
    // Different functions, different ids: their vectors are never mixed in a store's cache.
    const other = resolveEmbedder({ embed: (texts: string[]) => texts.map(() => [0, 0, 1]), dimensions: 3 });
    expect(other.id).not.toBe(plain.id);
    expect(resolveEmbedder({ embed: (texts: string[]) => texts.map(() => [1]), dimensions: 1, id: "mine" }).id).toBe("mine");
    const custom = resolveEmbedder({ provider: "custom", config: { embedder: counter } });
    expect(await custom.embed(["x"])).toEqual([[1, 1, 1]]);
    // Vectors of the wrong size are caught, as for every embedder.
    await expect(resolveEmbedder({ embed: (texts: string[]) => texts.map(() => [1, 2]), dimensions: 3 }).embed(["x"])).rejects.toThrow(EmbedderError);
    expect(() => resolveEmbedder({ embed: (texts: string[]) => texts.map(() => [1]) } as never)).toThrow(/needs dimensions/);
    // Same class, other settings: other ids. A bound function shows no source: an id is required.
    class Remote {
      readonly dimensions = 2;
      constructor(readonly model: string) {}
      embed(texts: string[]): number[][] {
        return texts.map(() => [this.model.length, 1]);
      }
    }
    expect(resolveEmbedder(new Remote("small")).id).not.toBe(resolveEmbedder(new Remote("large")).id);
    expect(resolveEmbedder(new Remote("small")).id).toBe(resolveEmbedder(new Remote("small")).id);
    const client = new Remote("small");
    expect(() => resolveEmbedder({ embed: client.embed.bind(client), dimensions: 2 })).toThrow(/bound or native function.*give it an id/);
    expect(resolveEmbedder({ embed: client.embed.bind(client), dimensions: 2, id: "remote-small" }).id).toBe("remote-small");
  });

  it("fails before any request when OpenAI has no key", async () => {
    const embedder = new AISDKEmbedder({ provider: "openai", model: "text-embedding-3-small", apiKey: undefined, baseURL: "http://127.0.0.1:9/v1" });
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      await expect(embedder.embed(["x"])).rejects.toBeInstanceOf(LLMAuthenticationError);
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
  });
});

describe("FunctionEmbedder", () => {
  it("batches and checks the vectors the function returns", async () => {
    const batches: string[][] = [];
    const embedder = new FunctionEmbedder({ embed: (texts) => (batches.push(texts), texts.map((t) => [t.length, 1])), dimensions: 2, batchSize: 2, id: "len" });
    expect(await embedder.embed(["a", "bb", "ccc"])).toEqual([[1, 1], [2, 1], [3, 1]]);
    expect(batches).toEqual([["a", "bb"], ["ccc"]]);
    const wrong = new FunctionEmbedder({ embed: (texts) => texts.map(() => [1]), dimensions: 2 });
    await expect(wrong.embed(["a"])).rejects.toThrow(/expected 2/);
    const short = new FunctionEmbedder({ embed: () => [], dimensions: 2 });
    await expect(short.embed(["a"])).rejects.toThrow(/0 vectors for 1 texts/);
    expect(() => new FunctionEmbedder({ embed: undefined as never, dimensions: 0 })).toThrow(EmbedderError);
  });
});
