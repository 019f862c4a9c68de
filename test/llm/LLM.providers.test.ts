import { describe, expect, it, vi } from "vitest";
import { eventBus, type CrewtsEvent } from "../../src/events/index.js";
import { LLM, type ChatMessage, type ToolSpec } from "../../src/llm/index.js";
import { mockServerPerTest, PROVIDER_SETUPS } from "./providerSetups.js";

const startServer = mockServerPerTest();

const multiplier: ToolSpec = {
  name: "multiplier",
  description: "Multiplies two numbers",
  parameters: {
    type: "object",
    properties: { first_number: { type: "number" }, second_number: { type: "number" } },
    required: ["first_number", "second_number"],
  },
};

const question: ChatMessage[] = [
  { role: "system", content: "You are a calculator." },
  { role: "user", content: "What is 2 times 3?" },
];

describe.each(PROVIDER_SETUPS)("LLM over $provider", (setup) => {
  it("answers with text and reports usage", async () => {
    const server = await startServer({ responses: [{ text: "It is 6.", usage: { promptTokens: 11, completionTokens: 4 } }] });
    const llm = setup.create(server);
    const result = await llm.call(question);
    expect(result.text).toBe("It is 6.");
    expect(result.usage).toEqual({ promptTokens: 11, completionTokens: 4, totalTokens: 15 });
    expect(result.toolCalls).toBeUndefined();
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.path).toBe(setup.path);
    expect(server.requests[0]?.body).toMatchObject({ model: setup.model });
  });

  it("returns native tool calls with object arguments", async () => {
    const server = await startServer({
      responses: [{ toolCalls: [{ id: "call_1", name: "multiplier", arguments: { first_number: 2, second_number: 3 } }] }],
    });
    const result = await setup.create(server).call(question, { tools: [multiplier] });
    expect(result.toolCalls).toEqual([{ id: "call_1", name: "multiplier", arguments: { first_number: 2, second_number: 3 } }]);
    expect(JSON.stringify(server.requests[0]?.body)).toContain("multiplier");
  });

  it("sends a conversation with tool calls and tool results back", async () => {
    const server = await startServer({ responses: ["The answer is 6."] });
    const history: ChatMessage[] = [
      ...question,
      { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "multiplier", arguments: { first_number: 2, second_number: 3 } }] },
      { role: "tool", content: "6", toolCallId: "call_1", toolName: "multiplier" },
    ];
    const result = await setup.create(server).call(history, { tools: [multiplier] });
    expect(result.text).toBe("The answer is 6.");
    const body = JSON.stringify(server.requests[0]?.body);
    expect(body).toContain("call_1");
    expect(body).toContain("first_number");
  });

  it("keeps unparsable tool arguments as the raw text", async () => {
    const server = await startServer({ responses: [{ toolCalls: [{ id: "call_9", name: "multiplier", arguments: "{first_number: 2" }] }] });
    const result = await setup.create(server).call(question, { tools: [multiplier] });
    expect(result.toolCalls).toEqual([{ id: "call_9", name: "multiplier", arguments: "{first_number: 2" }]);
  });

  it("streams text deltas to onToken and llm_stream_chunk events, with usage", async () => {
    const server = await startServer({ responses: [{ text: "Two times three is six.", usage: { promptTokens: 9, completionTokens: 6 } }] });
    // Collected and checked afterwards: the bus reports a throwing handler instead of failing the test.
    const chunkEvents: CrewtsEvent<"llm_stream_chunk">[] = [];
    eventBus.on("llm_stream_chunk", (event) => {
      chunkEvents.push(event);
    });
    const tokens: string[] = [];
    const result = await setup.create(server).call(question, {
      stream: true,
      onToken: (delta) => tokens.push(delta),
      callId: "call-abc",
      source: { agentRole: "Calculator" },
    });
    expect(result.text).toBe("Two times three is six.");
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.join("")).toBe("Two times three is six.");
    expect(chunkEvents.map((event) => event.chunk)).toEqual(tokens);
    for (const event of chunkEvents) expect(event).toMatchObject({ callId: "call-abc", agentRole: "Calculator" });
    expect(result.usage).toEqual({ promptTokens: 9, completionTokens: 6, totalTokens: 15 });
    expect(server.requests[0]?.body).toMatchObject({ stream: true });
  });

  it("streams tool calls", async () => {
    const server = await startServer({
      responses: [{ toolCalls: [{ id: "call_2", name: "multiplier", arguments: { first_number: 4, second_number: 5 } }] }],
    });
    const result = await setup.create(server, { stream: true }).call(question, { tools: [multiplier] });
    expect(result.toolCalls).toEqual([{ id: "call_2", name: "multiplier", arguments: { first_number: 4, second_number: 5 } }]);
    expect(result.usage.totalTokens).toBeGreaterThan(0);
  });

  it("sends the LLM's stop words and the call's together", async () => {
    const server = await startServer({ responses: ["Thought: done\nObservation: cut here"] });
    const result = await setup.create(server, { stop: ["\nObservation:"] }).call(question, { stop: ["END"] });
    const body = server.requests[0]?.body as Record<string, unknown>;
    const sent = setup.provider === "anthropic" ? body.stop_sequences : body.stop;
    expect(sent).toEqual(["\nObservation:", "END"]);
    expect(result.text).toBe("Thought: done");
  });

  it("sends a single stop string as a list", async () => {
    const server = await startServer({ responses: ["a END b"] });
    const result = await setup.create(server, { stop: "END" }).call(question);
    const body = server.requests[0]?.body as Record<string, unknown>;
    expect(setup.provider === "anthropic" ? body.stop_sequences : body.stop).toEqual(["END"]);
    expect(result.text).toBe("a ");
  });

  it("sends no stop field when there are no stop words", async () => {
    const server = await startServer({ responses: ["ok"] });
    await setup.create(server).call(question);
    const body = server.requests[0]?.body as Record<string, unknown>;
    expect(body.stop).toBeUndefined();
    expect(body.stop_sequences).toBeUndefined();
  });
});

describe("LLM request options", () => {
  it("sends temperature, max tokens and headers", async () => {
    const server = await startServer({ responses: ["ok"] });
    const setup = PROVIDER_SETUPS[0]!;
    await setup.create(server, { temperature: 0.2, maxTokens: 77, headers: { "x-team": "crewts" } }).call(question);
    expect(server.requests[0]?.body).toMatchObject({ temperature: 0.2, max_tokens: 77 });
    expect(server.requests[0]?.headers["x-team"]).toBe("crewts");
  });

  it("reads OPENAI_API_KEY and OPENAI_BASE_URL at call time, not at construction", async () => {
    const server = await startServer({ responses: ["ok"] });
    vi.stubEnv("OPENAI_API_KEY", "");
    const llm = new LLM({ model: "gpt-4o-mini" });
    vi.stubEnv("OPENAI_API_KEY", "sk-from-env-1234567890");
    vi.stubEnv("OPENAI_BASE_URL", server.url);
    expect((await llm.call(question)).text).toBe("ok");
    expect(server.requests[0]?.headers.authorization).toBe("[redacted]");
  });

  it("reads ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY", async () => {
    const server = await startServer({ responses: ["hi"] });
    vi.stubEnv("ANTHROPIC_API_KEY", "sk-ant-from-env-1234567890");
    vi.stubEnv("ANTHROPIC_BASE_URL", server.url);
    expect((await new LLM({ model: "claude-haiku-4-5" }).call(question)).text).toBe("hi");
    expect(server.requests[0]?.path).toBe("/v1/messages");
  });
});
