import { describe, expect, it, vi } from "vitest";
import { mockServerPerTest } from "./mockServerPerTest.js";

const start = mockServerPerTest();

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
}

interface ChatCompletion {
  object: string;
  model: string;
  choices: { message: { role: string; content: string | null; tool_calls?: unknown[] }; finish_reason: string }[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}
interface ChatChunk {
  choices: { delta?: { content?: string | null; tool_calls?: { index: number; id?: string; function: { arguments?: string } }[] }; finish_reason?: string | null }[];
  usage?: unknown;
}
interface AnthropicEvent {
  type: string;
  content_block?: { type: string };
  delta?: { type?: string; text?: string; partial_json?: string };
}
interface ErrorBody {
  error: { message: string; type: string };
}

async function readJson<T>(response: Response | Promise<Response>): Promise<T> {
  return (await (await response).json()) as T;
}

/** The first choice of a chat completion. */
async function firstChoice(response: Response | Promise<Response>): Promise<ChatCompletion["choices"][number]> {
  return (await readJson<ChatCompletion>(response)).choices[0]!;
}

/** The `data:` payloads of an SSE body, parsed ("[DONE]" kept as a string). */
async function sseData(response: Response | Promise<Response>): Promise<unknown[]> {
  const text = await (await response).text();
  return text
    .split("\n\n")
    .filter((frame) => frame.trim() !== "")
    .map((frame) => {
      const data = frame.split("\n").find((line) => line.startsWith("data: "))!.slice("data: ".length);
      return data === "[DONE]" ? data : (JSON.parse(data) as unknown);
    });
}

/** The chunks of an OpenAI stream, checking that it ends with [DONE]. */
async function chatChunks(response: Response | Promise<Response>): Promise<ChatChunk[]> {
  const events = await sseData(response);
  expect(events.at(-1)).toBe("[DONE]");
  return events.slice(0, -1) as ChatChunk[];
}

const streamedText = (chunks: ChatChunk[]): string => chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("");

const chat = (content: string, extra: Record<string, unknown> = {}) => ({ model: "gpt-4o-mini", messages: [{ role: "user", content }], ...extra });

describe("OpenAI chat completions over plain HTTP", () => {
  it("answers JSON with the scripted text and usage", async () => {
    const s = await start({ responses: ["Hello there"] });
    const res = await post(`${s.url}/chat/completions`, chat("12345678"));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await readJson(res)).toMatchObject({
      object: "chat.completion",
      model: "gpt-4o-mini",
      choices: [{ index: 0, message: { role: "assistant", content: "Hello there" }, finish_reason: "stop" }],
      // 8 prompt characters -> 2 tokens, 11 answer characters -> 3 tokens.
      usage: { prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 },
    });
  });

  it("uses scripted usage when given", async () => {
    const s = await start({ responses: [{ text: "x", usage: { promptTokens: 100, completionTokens: 7 } }] });
    const json = await readJson<ChatCompletion>(post(`${s.url}/chat/completions`, chat("hi")));
    expect(json.usage).toEqual({ prompt_tokens: 100, completion_tokens: 7, total_tokens: 107 });
  });

  it("streams SSE chunks, a finish chunk, a usage chunk and [DONE] when include_usage is set", async () => {
    const s = await start({ responses: ["one two three", "again"] });
    const res = await post(`${s.url}/chat/completions`, chat("hi", { stream: true, stream_options: { include_usage: true } }));
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const chunks = await chatChunks(res);
    expect(streamedText(chunks)).toBe("one two three");
    expect(chunks.filter((c) => c.choices[0]?.delta?.content).length).toBeGreaterThan(1);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe("stop");
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 4, total_tokens: 5 } });

    const plain = await chatChunks(post(`${s.url}/chat/completions`, chat("hi", { stream: true })));
    expect(plain.some((c) => c.usage !== undefined)).toBe(false);
  });

  it("answers tool calls as message.tool_calls and as streamed delta.tool_calls", async () => {
    const call = { name: "multiplier", arguments: { first_number: 2, second_number: 3 } };
    const s = await start({ responses: [{ toolCalls: [call] }, { text: "Let me compute", toolCalls: [{ ...call, id: "call_x" }] }] });
    expect(await firstChoice(post(`${s.url}/chat/completions`, chat("2*3?")))).toMatchObject({
      finish_reason: "tool_calls",
      message: {
        content: null,
        tool_calls: [{ id: "call_mock_0_0", type: "function", function: { name: "multiplier", arguments: '{"first_number":2,"second_number":3}' } }],
      },
    });

    const chunks = await chatChunks(post(`${s.url}/chat/completions`, chat("2*3?", { stream: true })));
    expect(streamedText(chunks)).toBe("Let me compute");
    const deltas = chunks.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? []);
    expect(deltas[0]).toMatchObject({ index: 0, id: "call_x", type: "function", function: { name: "multiplier", arguments: "" } });
    expect(deltas.map((d) => d.function.arguments).join("")).toBe('{"first_number":2,"second_number":3}');
    expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(["tool_calls"]);
  });

  it("truncates the text at the earliest stop sequence", async () => {
    const text = "Thought: use a tool\nAction: multiplier\nObservation: 6\nFinal Answer: 6";
    const s = await start({ responses: [text, text, text] });
    const one = await firstChoice(post(`${s.url}/chat/completions`, chat("q", { stop: "\nObservation:" })));
    expect(one.message.content).toBe("Thought: use a tool\nAction: multiplier");
    const many = await firstChoice(post(`${s.url}/chat/completions`, chat("q", { stop: ["Final", "\nAction:"] })));
    expect(many.message.content).toBe("Thought: use a tool");
    const streamed = await chatChunks(post(`${s.url}/chat/completions`, chat("q", { stream: true, stop: ["\nObservation:"] })));
    expect(streamedText(streamed)).toBe("Thought: use a tool\nAction: multiplier");
  });

  it("echoes the last user message as a ReAct final answer when no responses are scripted", async () => {
    const s = await start();
    const body = { messages: [{ role: "system", content: "sys" }, { role: "user", content: [{ type: "text", text: "ping" }] }] };
    expect(await readJson(post(`${s.url}/chat/completions`, body))).toMatchObject({
      model: "mock-model",
      choices: [{ message: { content: "Thought: I now know the final answer\nFinal Answer: ping" } }],
    });
  });

  it("passes the request and the answer index to a function responder", async () => {
    const seen: [number, number, unknown][] = [];
    const s = await start({
      faults: { 0: { status: 503 } },
      responses: (request, index) => {
        seen.push([request.index, index, request.body]);
        return `answer ${index}`;
      },
    });
    expect((await post(`${s.url}/chat/completions`, chat("a"))).status).toBe(503);
    expect((await firstChoice(post(`${s.url}/chat/completions`, chat("b")))).message.content).toBe("answer 0");
    expect(seen).toEqual([[1, 0, chat("b")]]);
  });

  it("answers 500 with the message when a function responder throws", async () => {
    const s = await start({
      responses: () => {
        throw new Error("boom");
      },
    });
    const res = await post(`${s.url}/chat/completions`, chat("a"));
    expect(res.status).toBe(500);
    expect((await readJson<ErrorBody>(res)).error.message).toBe("mock responder failed for request #0: boom");
  });
});

describe("Anthropic Messages over plain HTTP", () => {
  const messages = (extra: Record<string, unknown> = {}) => ({
    model: "claude-3-5-sonnet-latest",
    max_tokens: 100,
    system: "be brief",
    messages: [{ role: "user", content: [{ type: "text", text: "hello" }] }],
    ...extra,
  });

  it("answers JSON with text and tool_use blocks, stop_reason and usage", async () => {
    const s = await start({ responses: [{ text: "Let me check", toolCalls: [{ name: "lookup", arguments: { q: "x" } }] }, "done. Stop here"] });
    expect(await readJson(post(`${s.url}/messages`, messages()))).toMatchObject({
      type: "message",
      role: "assistant",
      model: "claude-3-5-sonnet-latest",
      content: [
        { type: "text", text: "Let me check" },
        { type: "tool_use", id: "toolu_mock_0_0", name: "lookup", input: { q: "x" } },
      ],
      stop_reason: "tool_use",
      // "be brief" + "hello" = 13 characters -> 4 tokens; "Let me check" + '{"q":"x"}' = 21 -> 6.
      usage: { input_tokens: 4, output_tokens: 6 },
    });
    expect(await readJson(post(`${s.url}/messages`, messages({ stop_sequences: [" Stop"] })))).toMatchObject({
      content: [{ type: "text", text: "done." }],
      stop_reason: "stop_sequence",
      stop_sequence: " Stop",
    });
  });

  it("streams message_start, content blocks with text and input_json deltas, message_delta and message_stop", async () => {
    const s = await start({ responses: [{ text: "Checking now", toolCalls: [{ name: "lookup", arguments: { query: "a longer query string" } }] }] });
    const res = await post(`${s.url}/messages`, messages({ stream: true }));
    const text = await res.clone().text();
    expect(text.startsWith("event: message_start\ndata: {")).toBe(true);
    const events = (await sseData(res)) as AnthropicEvent[];
    const jsonDeltas = events.filter((e) => e.delta?.type === "input_json_delta");
    expect(jsonDeltas.length).toBeGreaterThan(2);
    expect(events.map((e) => e.type)).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      ...jsonDeltas.map(() => "content_block_delta"),
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(events[2]).toMatchObject({ index: 0, content_block: { type: "text", text: "" } });
    expect(events.map((e) => (e.delta?.type === "text_delta" ? e.delta.text : "")).join("")).toBe("Checking now");
    expect(events[6]).toMatchObject({ index: 1, content_block: { type: "tool_use", id: "toolu_mock_0_0", name: "lookup", input: {} } });
    expect(jsonDeltas.map((e) => e.delta?.partial_json).join("")).toBe('{"query":"a longer query string"}');
    expect(events.at(-2)).toMatchObject({ delta: { stop_reason: "tool_use" }, usage: { output_tokens: 12 } });
  });

  it("answers errors in Anthropic's shape", async () => {
    const s = await start({ faults: { 0: { status: 529 } } });
    const res = await post(`${s.url}/messages`, messages());
    expect(res.status).toBe(529);
    expect(await readJson(res)).toEqual({ type: "error", error: { type: "overloaded_error", message: "mock fault injected for request #0 (HTTP 529)" } });
  });
});

describe("faults, exhaustion, recording and lifecycle", () => {
  it("injects a 429 with retry-after and a 500 in OpenAI's error shape, then serves the script", async () => {
    const s = await start({ responses: ["finally"], faults: { 0: { status: 429, headers: { "retry-after": "1" } }, 1: { status: 500 } } });
    const limited = await post(`${s.url}/chat/completions`, chat("q"));
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("1");
    expect(await readJson(limited)).toEqual({
      error: { message: "mock fault injected for request #0 (HTTP 429)", type: "requests", param: null, code: "rate_limit_exceeded" },
    });
    const failed = await post(`${s.url}/chat/completions`, chat("q"));
    expect(failed.status).toBe(500);
    expect((await readJson<ErrorBody>(failed)).error.type).toBe("server_error");
    expect((await firstChoice(post(`${s.url}/chat/completions`, chat("q")))).message.content).toBe("finally");
  });

  it("sends a garbage body with 200, or a custom body with a status", async () => {
    const s = await start({
      responses: ["ok"],
      faults: { 0: { body: "this is not json" }, 1: { status: 502, body: "<html>bad gateway</html>", headers: { "content-type": "text/html" } } },
    });
    const garbage = await post(`${s.url}/chat/completions`, chat("q"));
    expect(garbage.status).toBe(200);
    expect(await garbage.text()).toBe("this is not json");
    const html = await post(`${s.url}/chat/completions`, chat("q"));
    expect(html.status).toBe(502);
    expect(html.headers.get("content-type")).toBe("text/html");
    expect(await html.text()).toBe("<html>bad gateway</html>");
  });

  it("delays a request; a client that gives up does not consume a scripted answer", async () => {
    const s = await start({ responses: ["first", "second"], faults: { 0: { delayMs: 60_000 }, 2: { delayMs: 20 } } });
    const client = new AbortController();
    const abandoned = fetch(`${s.url}/chat/completions`, { method: "POST", body: JSON.stringify(chat("q")), signal: client.signal });
    // The client gives up once the server holds its request, not after a guessed time.
    await vi.waitFor(() => expect(s.requests).toHaveLength(1));
    client.abort();
    await expect(abandoned).rejects.toThrow();
    expect((await firstChoice(post(`${s.url}/chat/completions`, chat("q")))).message.content).toBe("first");
    expect((await firstChoice(post(`${s.url}/chat/completions`, chat("q")))).message.content).toBe("second");
    expect(s.requests.map((r) => r.index)).toEqual([0, 1, 2]);
  });

  it("answers 500 with a clear message when the script is exhausted", async () => {
    const s = await start({ responses: ["only one"] });
    await post(`${s.url}/chat/completions`, chat("q"));
    const res = await post(`${s.url}/chat/completions`, chat("q"));
    expect(res.status).toBe(500);
    expect((await readJson<ErrorBody>(res)).error.message).toMatch(/^mock server has no scripted response left for request #1; add one to responses/);
  });

  it("records every request in order with secrets redacted", async () => {
    const s = await start({ responses: ["a"], faults: { 0: { status: 429 } } });
    await post(`${s.url}/chat/completions`, chat("first"), { authorization: "Bearer sk-secret" });
    await post(`${s.url}/messages`, { messages: [{ role: "user", content: "second" }] }, { "x-api-key": "sk-ant-secret", "x-custom": "kept" });
    await fetch(`${s.url}/models`);
    expect(s.requests.map((r) => [r.index, r.method, r.path])).toEqual([
      [0, "POST", "/v1/chat/completions"],
      [1, "POST", "/v1/messages"],
      [2, "GET", "/v1/models"],
    ]);
    expect(s.requests[0]!.headers.authorization).toBe("[redacted]");
    expect(s.requests[0]!.body).toEqual(chat("first"));
    expect(s.requests[1]!.headers["x-api-key"]).toBe("[redacted]");
    expect(s.requests[1]!.headers["x-custom"]).toBe("kept");
    expect(JSON.stringify(s.requests)).not.toContain("secret");
  });

  it("answers 400 for invalid JSON, 404 for unknown paths and lists models", async () => {
    const s = await start({ model: "my-model" });
    const bad = await fetch(`${s.url}/chat/completions`, { method: "POST", body: "{not json" });
    expect(bad.status).toBe(400);
    expect((await readJson<ErrorBody>(bad)).error.message).toContain("not valid JSON");
    expect(s.requests[0]!.body).toBe("{not json");
    const noMessages = await post(`${s.url}/messages`, { model: "x" });
    expect(noMessages.status).toBe(400);
    expect(await readJson(noMessages)).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    const missing = await fetch(`${s.url}/nope`);
    expect(missing.status).toBe(404);
    expect((await readJson<ErrorBody>(missing)).error.message).toContain("no route GET /v1/nope");
    expect((await readJson<ErrorBody>(post(`${s.url}/responses`, {}))).error.message).toContain("openai.chat(model)");
    expect(await readJson(fetch(`${s.url}/models`))).toEqual({ object: "list", data: [{ id: "my-model", object: "model", created: 0, owned_by: "crewts-mock" }] });
  });

  it("handles a large request body", async () => {
    const s = await start({ responses: ["big"] });
    const json = await readJson<ChatCompletion>(post(`${s.url}/chat/completions`, chat("x".repeat(5_000_000))));
    expect(json.usage.prompt_tokens).toBe(1_250_000);
  });

  it("close() does not wait for a pending delayed request and is idempotent", async () => {
    const s = await start({ responses: ["never"], faults: { 0: { delayMs: 600_000 } } });
    const pending = post(`${s.url}/chat/completions`, chat("q"));
    await vi.waitFor(() => expect(s.requests).toHaveLength(1));
    const started = Date.now();
    await Promise.all([s.close(), s.close()]);
    expect(Date.now() - started).toBeLessThan(5_000);
    await expect(pending).rejects.toThrow();
    await s.close();
  });
});
