import { describe, expect, it } from "vitest";
import { AISDKEmbedder } from "../../src/knowledge/embedders/AISDKEmbedder.js";
import { DEFAULT_TOTAL_TIMEOUT_MS, LLM, LLMOptionsError, LLMServerError, LLMTimeoutError, type ChatMessage } from "../../src/llm/index.js";
import type { MockFault } from "../../src/testing/index.js";
import { mockServerPerTest } from "../testing/mockServerPerTest.js";

const hello: ChatMessage[] = [{ role: "user", content: "Hello" }];
const start = mockServerPerTest();

// A provider that never answers in time: every request is held far longer than any limit below.
const silent = (count: number): Record<number, MockFault> => Object.fromEntries(Array.from({ length: count }, (_, i) => [i, { delayMs: 30_000 }]));

async function rejection(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof Error)) throw new Error(`expected a rejection with an Error, got ${String(error)}`);
  return error;
}

describe("the total deadline of an LLM call (totalTimeoutMs)", () => {
  it("ends a call to a silent provider at the deadline, before the retries run out, and says which limit was reached", async () => {
    const server = await start({ responses: ["never"], faults: silent(10) });
    const llm = new LLM({ model: "openai-compatible/m", baseURL: server.url, apiKey: "k", timeoutMs: 200, totalTimeoutMs: 500, maxRetries: 5, retry: { baseDelayMs: 0, maxDelayMs: 0 } });
    const error = await rejection(llm.call(hello));
    expect(error).toBeInstanceOf(LLMTimeoutError);
    expect(error.message).toContain("total deadline of 500 ms (totalTimeoutMs)");
    expect(error.message).toContain("Raise totalTimeoutMs");
    expect(error.message).toContain("200 ms (timeoutMs)");
    // 200 + 200 + what is left: the sixth attempt maxRetries allows is never made.
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
    expect(server.requests.length).toBeLessThanOrEqual(3);
    expect((error as LLMTimeoutError).attempts).toBe(server.requests.length);
  });

  it("does not wait for a retry that would start after the deadline", async () => {
    const server = await start({ responses: ["never"], faults: { 0: { status: 503, headers: { "retry-after-ms": "2000" } } } });
    const llm = new LLM({ model: "openai-compatible/m", baseURL: server.url, apiKey: "k", totalTimeoutMs: 500, maxRetries: 5, retry: { baseDelayMs: 0, maxDelayMs: 10_000 } });
    const error = await rejection(llm.call(hello));
    expect(error).toBeInstanceOf(LLMServerError);
    expect(error.message).toContain("HTTP 503");
    expect(error.message).toMatch(/next attempt .*after the total deadline of 500 ms \(totalTimeoutMs\)/);
    expect(server.requests).toHaveLength(1);
  });

  it("names the per-attempt limit when that is the one reached", async () => {
    const server = await start({ responses: ["never"], faults: silent(2) });
    const llm = new LLM({ model: "openai-compatible/m", baseURL: server.url, apiKey: "k", timeoutMs: 100, totalTimeoutMs: 20_000, maxRetries: 1, retry: { baseDelayMs: 0, maxDelayMs: 0 } });
    const error = await rejection(llm.call(hello));
    expect(error).toBeInstanceOf(LLMTimeoutError);
    expect(error.message).toContain("no answer within 100 ms (timeoutMs)");
    expect(error.message).not.toContain("totalTimeoutMs");
    expect(server.requests).toHaveLength(2);
  });

  it("defaults to 5 minutes, and is validated", () => {
    expect(DEFAULT_TOTAL_TIMEOUT_MS).toBe(300_000);
    expect(() => new LLM({ model: "openai/gpt-4o-mini", totalTimeoutMs: 0 })).toThrow(LLMOptionsError);
    expect(() => new LLM({ model: "openai/gpt-4o-mini", totalTimeoutMs: 1.5 })).toThrow(/totalTimeoutMs/);
  });
});

describe("the total deadline of an embedding request (totalTimeoutMs)", () => {
  it("ends a batch sent to a silent server at the deadline and says so", async () => {
    const server = await start({ faults: silent(10) });
    const embedder = new AISDKEmbedder({ provider: "openai-compatible", model: "e", baseURL: server.url, timeoutMs: 200, totalTimeoutMs: 500, maxRetries: 5, retry: { baseDelayMs: 0, maxDelayMs: 0 } });
    const error = await rejection(embedder.embed(["hello"]));
    expect(error).toBeInstanceOf(LLMTimeoutError);
    expect(error.message).toContain("total deadline of 500 ms (totalTimeoutMs)");
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
    expect(server.requests.length).toBeLessThanOrEqual(3);
  });
});
