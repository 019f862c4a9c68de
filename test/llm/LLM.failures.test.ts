import { inspect } from "node:util";
import { describe, expect, it, vi } from "vitest";
import { eventBus, type CrewtsEvent } from "../../src/events/index.js";
import {
  LLM,
  LLMAuthenticationError,
  LLMBadRequestError,
  LLMConnectionError,
  LLMContextLengthExceededError,
  LLMRateLimitError,
  LLMResponseError,
  LLMServerError,
  LLMTimeoutError,
  callLLM,
  type ChatMessage,
} from "../../src/llm/index.js";
import { mockServerPerTest, PROVIDER_SETUPS, recordEvents, SECRET_KEY } from "./providerSetups.js";

const hello: ChatMessage[] = [{ role: "user", content: "Hello" }];

const startServer = mockServerPerTest();

/** Runs `fn`, expecting it to reject, and returns the error. */
async function failure(fn: () => Promise<unknown>): Promise<Error> {
  try {
    await fn();
  } catch (error) {
    if (error instanceof Error) return error;
    throw new Error(`rejected with a non-Error: ${String(error)}`, { cause: error });
  }
  throw new Error("expected a rejection");
}

describe.each(PROVIDER_SETUPS)("LLM failures over $provider", (setup) => {
  describe.each([false, true])("stream: %s", (stream) => {
    it("waits as long as retry-after-ms says after a 429, then succeeds", async () => {
      const server = await startServer({ responses: ["recovered"], faults: { 0: { status: 429, headers: { "retry-after-ms": "60" } } } });
      const retries: CrewtsEvent<"llm_call_retry">[] = [];
      eventBus.on("llm_call_retry", (event) => {
        retries.push(event);
      });
      const llm = setup.create(server, { stream, retry: { baseDelayMs: 1, maxDelayMs: 5000 } });
      const started = performance.now();
      const result = await llm.call(hello, { source: { agentRole: "Writer" } });
      const elapsed = performance.now() - started;
      expect(result.text).toBe("recovered");
      expect(server.requests).toHaveLength(2);
      expect(elapsed).toBeGreaterThanOrEqual(55);
      expect(retries).toHaveLength(1);
      expect(retries[0]).toMatchObject({ attempt: 1, delayMs: 60, status: 429, model: llm.model, agentRole: "Writer" });
      expect(retries[0]?.error).toContain("429");
    });

    it("ends a 500 storm in an LLMServerError naming provider, model, status and attempts", async () => {
      const server = await startServer({ responses: ["never"], faults: { 0: { status: 500 }, 1: { status: 502 }, 2: { status: 503 }, 3: { status: 500 } } });
      const error = await failure(() => setup.create(server, { stream, maxRetries: 3 }).call(hello));
      expect(error).toBeInstanceOf(LLMServerError);
      const llmError = error as LLMServerError;
      expect(llmError).toMatchObject({ provider: setup.provider, model: setup.model, status: 500, retryable: true, attempts: 4 });
      expect(error.message).toContain(setup.provider);
      expect(error.message).toContain(setup.model);
      expect(error.message).toContain("HTTP 500");
      expect(error.message).toContain("4 attempts");
      expect(server.requests).toHaveLength(4);
    });

    it("times out a slow attempt with LLMTimeoutError, and retries it", async () => {
      const server = await startServer({ responses: ["late", "on time"], faults: { 0: { delayMs: 2000 } } });
      const events = recordEvents();
      // Generous: the second, undelayed attempt must finish within it even on a loaded machine.
      const result = await setup.create(server, { stream, timeoutMs: 250, maxRetries: 1 }).call(hello);
      expect(result.text).toBe("late");
      expect(server.requests).toHaveLength(2);
      const retries = events.filter((event): event is CrewtsEvent<"llm_call_retry"> => event.type === "llm_call_retry");
      expect(retries.map((event) => event.error)).toEqual([expect.stringContaining("no answer within 250 ms")]);
    });

    it("gives up on a server that never answers in time", async () => {
      const server = await startServer({ responses: ["x"], faults: { 0: { delayMs: 2000 }, 1: { delayMs: 2000 } } });
      const error = await failure(() => setup.create(server, { stream, timeoutMs: 300, maxRetries: 1 }).call(hello));
      expect(error).toBeInstanceOf(LLMTimeoutError);
      expect(error.message).toContain("300 ms");
      expect(error.message).toContain("2 attempts");
      expect(server.requests).toHaveLength(2);
    });

    it("does not retry a 401 and never shows the key", async () => {
      const server = await startServer({
        responses: ["never"],
        faults: { 0: { status: 401, body: JSON.stringify({ error: { message: `Incorrect API key provided: ${SECRET_KEY}`, type: "invalid_request_error" } }) } },
      });
      const events = recordEvents();
      const error = await failure(() => callLLM(setup.create(server, { stream }), hello));
      expect(error).toBeInstanceOf(LLMAuthenticationError);
      expect(error.message).toContain("401");
      expect(error.message).not.toContain(SECRET_KEY);
      expect(error.message).toContain("[redacted]");
      expect(server.requests).toHaveLength(1);
      if (setup.provider !== "ollama") expect(error.message).toMatch(/_API_KEY/);
      const failed = events.find((event) => event.type === "llm_call_failed");
      expect(failed).toMatchObject({ status: 401 });
      expect(JSON.stringify(events)).not.toContain(SECRET_KEY);
      // What console.log(error) prints: the cause chain with the SDK's response body and parsed data.
      expect(inspect(error, { depth: 10 })).not.toContain(SECRET_KEY);
    });

    it("reports a context overflow as LLMContextLengthExceededError, not retried", async () => {
      const server = await startServer({
        responses: ["never"],
        faults: { 0: { status: 400, body: JSON.stringify({ error: { message: "This model's maximum context length is 8192 tokens.", type: "invalid_request_error" } }) } },
      });
      const error = await failure(() => setup.create(server, { stream }).call(hello));
      expect(error).toBeInstanceOf(LLMContextLengthExceededError);
      expect(error).toBeInstanceOf(LLMBadRequestError);
      expect(server.requests).toHaveLength(1);
    });

    it("does not retry other 4xx", async () => {
      const server = await startServer({ responses: ["never"], faults: { 0: { status: 422 } } });
      const error = await failure(() => setup.create(server, { stream }).call(hello));
      expect(error).toBeInstanceOf(LLMBadRequestError);
      expect((error as LLMBadRequestError).status).toBe(422);
      expect(server.requests).toHaveLength(1);
    });
  });

  it("turns a garbage body into LLMResponseError", async () => {
    const server = await startServer({ responses: ["never"], faults: { 0: { body: "<html>502 Bad Gateway</html>" } } });
    const error = await failure(() => setup.create(server).call(hello));
    expect(error).toBeInstanceOf(LLMResponseError);
    expect(error.message).toContain(setup.provider);
    expect(server.requests).toHaveLength(1);
  });

  it("turns a JSON body of the wrong shape into LLMResponseError", async () => {
    const server = await startServer({ responses: ["never"], faults: { 0: { body: JSON.stringify({ hello: "world" }) } } });
    const error = await failure(() => setup.create(server).call(hello));
    expect(error).toBeInstanceOf(LLMResponseError);
  });

  it("retries a 429 with backoff when there is no Retry-After", async () => {
    const server = await startServer({ responses: ["ok"], faults: { 0: { status: 429 }, 1: { status: 429 } } });
    const result = await setup.create(server).call(hello);
    expect(result.text).toBe("ok");
    expect(server.requests).toHaveLength(3);
  });

  it("gives up on a 429 storm with LLMRateLimitError", async () => {
    const server = await startServer({ responses: ["never"], faults: { 0: { status: 429 }, 1: { status: 429 } } });
    const error = await failure(() => setup.create(server, { maxRetries: 1 }).call(hello));
    expect(error).toBeInstanceOf(LLMRateLimitError);
    expect(error.message).toContain("2 attempts");
    expect(error.message).toContain("rate");
  });
});

describe("LLM retry edge cases", () => {
  const openai = PROVIDER_SETUPS[0]!;

  it("honours retry-after in seconds", async () => {
    const server = await startServer({ responses: ["ok"], faults: { 0: { status: 503, headers: { "retry-after": "0.05" } } } });
    const started = performance.now();
    await openai.create(server, { retry: { baseDelayMs: 1, maxDelayMs: 5000 } }).call(hello);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(server.requests).toHaveLength(2);
  });

  it("caps a long Retry-After at maxDelayMs", async () => {
    const server = await startServer({ responses: ["ok"], faults: { 0: { status: 429, headers: { "retry-after": "3600" } } } });
    const delays: number[] = [];
    eventBus.on("llm_call_retry", (event) => {
      delays.push(event.delayMs);
    });
    await openai.create(server, { retry: { baseDelayMs: 1, maxDelayMs: 20 } }).call(hello);
    expect(delays).toEqual([20]);
  });

  it("retries 408 and 409", async () => {
    const server = await startServer({ responses: ["ok"], faults: { 0: { status: 408 }, 1: { status: 409 } } });
    expect((await openai.create(server).call(hello)).text).toBe("ok");
    expect(server.requests).toHaveLength(3);
  });

  it("does not retry an exhausted quota", async () => {
    const server = await startServer({
      responses: ["never"],
      faults: { 0: { status: 429, body: JSON.stringify({ error: { message: "You exceeded your current quota", code: "insufficient_quota" } }) } },
    });
    const error = await failure(() => openai.create(server).call(hello));
    expect(error).toBeInstanceOf(LLMRateLimitError);
    expect((error as LLMRateLimitError).retryable).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it("stops at once on a user abort during the request", async () => {
    const server = await startServer({ responses: ["x"], faults: { 0: { delayMs: 60_000 } } });
    const controller = new AbortController();
    const call = failure(() => openai.create(server).call(hello, { signal: controller.signal }));
    // Aborted once the request is in flight: the server has it and holds the answer back.
    await vi.waitFor(() => expect(server.requests).toHaveLength(1));
    const started = performance.now();
    controller.abort();
    const error = await call;
    expect(error.name).toBe("AbortError");
    expect(performance.now() - started).toBeLessThan(1000);
    expect(server.requests).toHaveLength(1);
  });

  it("stops at once on a user abort during the wait before a retry", async () => {
    const server = await startServer({ responses: ["x"], faults: { 0: { status: 429, headers: { "retry-after": "60" } } } });
    const waiting = new AbortController();
    eventBus.on("llm_call_retry", () => waiting.abort(new Error("user stopped")));
    const stopped = await failure(() => openai.create(server, { retry: { baseDelayMs: 1, maxDelayMs: 60_000 } }).call(hello, { signal: waiting.signal }));
    expect(stopped.message).toBe("user stopped");
    expect(server.requests).toHaveLength(1);
  });

  it("tells Ollama users to pull a missing model", async () => {
    const server = await startServer({
      responses: ["never"],
      faults: { 0: { status: 404, body: JSON.stringify({ error: { message: "model \"llama3.1\" not found, try pulling it first" } }) } },
    });
    const error = await failure(() => PROVIDER_SETUPS[3]!.create(server).call(hello));
    expect(error).toBeInstanceOf(LLMBadRequestError);
    expect(error.name).toBe("LLMBadRequestError");
    expect(error.message).toContain('ollama pull llama3.1');
  });

  it("never shows a key passed as a header, and never prints the key of an LLM", async () => {
    const headerKey = "azure-style-key-0123456789";
    const server = await startServer({
      responses: ["never"],
      faults: { 0: { status: 401, body: JSON.stringify({ error: { message: `Access denied for key ${headerKey}` } }) } },
    });
    const llm = new LLM({ model: "openai-compatible/m", baseURL: server.url, headers: { "api-key": headerKey } });
    const error = await failure(() => llm.call(hello));
    expect(error).toBeInstanceOf(LLMAuthenticationError);
    expect(error.message).toContain("[redacted]");
    expect(inspect(error, { depth: 10 })).not.toContain(headerKey);

    const keyed = openai.create(server);
    expect(JSON.stringify(keyed)).not.toContain(SECRET_KEY);
    expect(inspect(keyed, { depth: 10, showHidden: true })).not.toContain(SECRET_KEY);
  });

  it("rejects at once when the signal is already aborted", async () => {
    const server = await startServer({ responses: ["x"] });
    const error = await failure(() => openai.create(server).call(hello, { signal: AbortSignal.abort() }));
    expect(error.name).toBe("AbortError");
    expect(server.requests).toHaveLength(0);
  });

  it("reports an unreachable server as LLMConnectionError after retrying", async () => {
    const server = await startServer({ responses: [] });
    const url = server.url;
    await server.close();
    const llm = new LLM({ model: "openai-compatible/m", baseURL: url, maxRetries: 1, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
    const error = await failure(() => llm.call(hello));
    expect(error).toBeInstanceOf(LLMConnectionError);
    expect(error.message).toContain("2 attempts");
  });

  it("fails a missing OpenAI key at call time, naming the env var, without any request", async () => {
    const server = await startServer({ responses: ["x"] });
    vi.stubEnv("OPENAI_API_KEY", "");
    const llm = new LLM({ model: "openai/gpt-4o", baseURL: server.url });
    const error = await failure(() => llm.call(hello));
    expect(error).toBeInstanceOf(LLMAuthenticationError);
    expect(error.message).toContain("OPENAI_API_KEY");
    expect(server.requests).toHaveLength(0);
  });

  it("fails a missing Anthropic key naming ANTHROPIC_API_KEY", async () => {
    vi.stubEnv("ANTHROPIC_API_KEY", "");
    const error = await failure(() => new LLM({ model: "anthropic/claude-sonnet-4-5" }).call(hello));
    expect(error).toBeInstanceOf(LLMAuthenticationError);
    expect(error.message).toContain("ANTHROPIC_API_KEY");
  });

  it("does not replay a stream that broke after text was delivered", async () => {
    // Text then a dropped connection: the stream ends early; retrying would repeat the tokens.
    const server = await startServer({
      responses: ["first answer", "second answer"],
      faults: { 0: { body: 'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"partial "}}]}\n\ndata: {oops\n\n', headers: { "content-type": "text/event-stream" } } },
    });
    const tokens: string[] = [];
    const error = await failure(() => openai.create(server, { stream: true }).call(hello, { onToken: (t) => tokens.push(t) }));
    expect(error).toBeInstanceOf(LLMResponseError);
    expect(tokens).toEqual(["partial "]);
    expect(server.requests).toHaveLength(1);
  });
});
