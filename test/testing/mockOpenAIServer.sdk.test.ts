import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { APICallError, generateText, jsonSchema, streamText, tool } from "ai";
import type { LanguageModel } from "ai";
import { describe, expect, it } from "vitest";
import { mockServerPerTest } from "./mockServerPerTest.js";

// The mock server is only useful if the real AI SDK providers accept what it sends.
const start = mockServerPerTest();

const multiplier = tool({
  description: "Multiplies two numbers",
  inputSchema: jsonSchema<{ first_number: number; second_number: number }>({
    type: "object",
    properties: { first_number: { type: "number" }, second_number: { type: "number" } },
    required: ["first_number", "second_number"],
  }),
});

const API_KEY = "sk-test-secret";
const providers: [string, (url: string) => LanguageModel][] = [
  ["@ai-sdk/openai (chat)", (url) => createOpenAI({ baseURL: url, apiKey: API_KEY }).chat("gpt-4o-mini")],
  ["@ai-sdk/openai-compatible", (url) => createOpenAICompatible({ name: "x", baseURL: url, apiKey: API_KEY, includeUsage: true })("some-model")],
  ["@ai-sdk/anthropic", (url) => createAnthropic({ baseURL: url, apiKey: API_KEY })("claude-3-5-sonnet-latest")],
];
// maxOutputTokens keeps @ai-sdk/anthropic from warning that it does not know the model's output limit.
const common = { maxRetries: 0, maxOutputTokens: 256 };

describe.each(providers)("the real AI SDK provider %s", (_name, makeModel) => {
  const toolCall = { toolCalls: [{ name: "multiplier", arguments: { first_number: 2, second_number: 3 } }] };

  it("generates text with usage", async () => {
    const s = await start({ responses: [{ text: "Final Answer: 42", usage: { promptTokens: 11, completionTokens: 5 } }] });
    const result = await generateText({ model: makeModel(s.url), prompt: "What is the answer?", ...common });
    expect(result.text).toBe("Final Answer: 42");
    expect(result.finishReason).toBe("stop");
    expect(result.usage).toMatchObject({ inputTokens: 11, outputTokens: 5, totalTokens: 16 });
  });

  it("returns a tool call", async () => {
    const s = await start({ responses: [toolCall] });
    const result = await generateText({ model: makeModel(s.url), prompt: "2 times 3?", tools: { multiplier }, ...common });
    expect(result.finishReason).toBe("tool-calls");
    expect(result.toolCalls).toMatchObject([{ toolName: "multiplier", input: { first_number: 2, second_number: 3 } }]);
    expect(result.toolCalls[0]!.toolCallId).toMatch(/_mock_0_0$/);
  });

  it("honours stop sequences", async () => {
    const s = await start({ responses: ["Thought: x\nObservation: made up"] });
    const result = await generateText({ model: makeModel(s.url), prompt: "q", stopSequences: ["\nObservation:"], ...common });
    expect(result.text).toBe("Thought: x");
  });

  it("streams text and reports usage", async () => {
    const s = await start({ responses: [{ text: "streamed words arrive in pieces", usage: { promptTokens: 9, completionTokens: 6 } }] });
    const result = streamText({ model: makeModel(s.url), prompt: "stream please", ...common });
    const parts: string[] = [];
    for await (const part of result.textStream) parts.push(part);
    expect(parts.join("")).toBe("streamed words arrive in pieces");
    expect(parts.length).toBeGreaterThan(1);
    expect(await result.usage).toMatchObject({ inputTokens: 9, outputTokens: 6, totalTokens: 15 });
  });

  it("streams a tool call", async () => {
    const s = await start({ responses: [{ text: "Let me multiply.", ...toolCall }] });
    const result = streamText({ model: makeModel(s.url), prompt: "2 times 3?", tools: { multiplier }, ...common });
    expect(await result.text).toBe("Let me multiply.");
    expect(await result.toolCalls).toMatchObject([{ toolName: "multiplier", input: { first_number: 2, second_number: 3 } }]);
    expect(await result.finishReason).toBe("tool-calls");
  });

  it("surfaces an injected 429 as a retryable APICallError with the provider message", async () => {
    const s = await start({ faults: { 0: { status: 429, headers: { "retry-after": "1" } } } });
    const error: unknown = await generateText({ model: makeModel(s.url), prompt: "q", ...common }).catch((e: unknown) => e);
    expect(APICallError.isInstance(error)).toBe(true);
    const apiError = error as APICallError;
    expect(apiError.statusCode).toBe(429);
    expect(apiError.isRetryable).toBe(true);
    expect(apiError.message).toBe("mock fault injected for request #0 (HTTP 429)");
    expect(apiError.responseHeaders?.["retry-after"]).toBe("1");
    expect(s.requests[0]!.headers.authorization ?? s.requests[0]!.headers["x-api-key"]).toBe("[redacted]");
    expect(JSON.stringify(s.requests)).not.toContain(API_KEY);
  });
});
