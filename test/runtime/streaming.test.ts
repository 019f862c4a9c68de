import { afterEach, describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { Agent, Crew, type CrewOutput, Flow, KickoffAbortedError, LLM, StreamingOutput, eventBus, start, tool, type StreamChunk } from "../../src/index.js";
import { startMockOpenAIServer, type MockOpenAIServer, type MockServerOptions } from "../../src/testing/index.js";
import { fakeAgent, final, task } from "../crew/helpers.js";

let server: MockOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function mockLLM(options: MockServerOptions, llmOptions: { functionCalling?: boolean } = {}): Promise<LLM> {
  server = await startMockOpenAIServer(options);
  return new LLM({ model: "openai-compatible/mock-model", baseURL: server.url, apiKey: "test-key", maxRetries: 0, ...llmOptions });
}

/** Resolves once `resolve` is called; for holding the mock's stream until the consumer has seen a chunk. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe("streaming a crew over the provider's SSE stream", () => {
  it("hands the first chunk to the consumer before the provider's reply has ended", async () => {
    const firstSeen = gate();
    const order: string[] = [];
    const llm = await mockLLM({
      responses: ["Streaming reaches the browser word by word"],
      // Everything after the first text delta is held until the consumer has seen a chunk: without
      // real streaming the reply could never end and the test would time out.
      beforeStreamEvent: async ({ index }) => {
        if (index >= 2) await firstSeen.opened;
        if (index === 2) order.push("provider continues");
      },
    });
    const agent = new Agent({ role: "Writer", goal: "Write", backstory: "A writer.", llm });
    const crew = new Crew({ agents: [agent], tasks: [task("Write a line", agent, { name: "line" })] });
    const streaming = await crew.kickoff({}, { stream: true });
    expect(streaming).toBeInstanceOf(StreamingOutput);
    const chunks: StreamChunk[] = [];
    for await (const chunk of streaming) {
      if (chunks.length === 0) {
        order.push("consumer got first chunk");
        firstSeen.open();
      }
      chunks.push(chunk);
    }
    const result = await streaming.result;
    expect(order).toEqual(["consumer got first chunk", "provider continues"]);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.map((c) => c.content).join("")).toBe("Streaming reaches the browser word by word");
    expect(chunks[0]).toMatchObject({ chunkType: "text", taskName: "line", taskIndex: 0, agentRole: "Writer" });
    expect(result.raw).toBe("Streaming reaches the browser word by word");
    // The request asked the server to stream, and for usage (openai-compatible only reports it when asked).
    expect(server!.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(result.tokenUsage.totalTokens).toBeGreaterThan(0);
  });

  it("streams native tool calls as tool_call chunks with their name and arguments", async () => {
    const llm = await mockLLM({ responses: [{ toolCalls: [{ name: "lookup", arguments: { city: "Oslo" } }] }, "It is sunny in Oslo"] }, { functionCalling: true });
    const lookup = tool({ name: "lookup", description: "Weather by city", schema: z.object({ city: z.string() }), execute: ({ city }) => `sunny in ${city}` });
    const agent = new Agent({ role: "Forecaster", goal: "Forecast", backstory: "A forecaster.", llm, tools: [lookup] });
    const crew = new Crew({ agents: [agent], tasks: [task("Weather in Oslo?", agent)], stream: true });
    // A crew made with stream: true is typed as streaming: its kickoff resolves to a StreamingOutput.
    // (Checked on functions that are never called: the model's scripted replies are for the run below.)
    expectTypeOf(() => crew.kickoff()).returns.resolves.toEqualTypeOf<StreamingOutput<CrewOutput<unknown>>>();
    expectTypeOf(() => crew.kickoff({}, { stream: false })).returns.resolves.toEqualTypeOf<CrewOutput<unknown>>();
    expectTypeOf(() => new Crew({ agents: [agent], tasks: [task("Hi", agent)] }).kickoff()).returns.resolves.toEqualTypeOf<CrewOutput<unknown>>();
    const streaming = await crew.kickoff();
    expect(streaming).toBeInstanceOf(StreamingOutput);
    const chunks: StreamChunk[] = [];
    for await (const chunk of streaming) chunks.push(chunk);
    const calls = chunks.filter((c) => c.chunkType === "tool_call");
    expect(calls).toHaveLength(1);
    expect(calls[0]!.toolCall).toMatchObject({ name: "lookup", arguments: { city: "Oslo" } });
    expect(JSON.parse(calls[0]!.content)).toEqual({ city: "Oslo" });
    expect(calls[0]!.agentRole).toBe("Forecaster");
    expect((await streaming.result).raw).toBe("It is sunny in Oslo");
  });

  it("streams an Anthropic model's text and tool calls the same way", async () => {
    server = await startMockOpenAIServer({ responses: [{ text: "Checking.", toolCalls: [{ name: "lookup", arguments: { city: "Bergen" } }] }, "Rainy in Bergen"] });
    const llm = new LLM({ model: "anthropic/claude-sonnet-4-5", baseURL: server.url, apiKey: "test-key", maxRetries: 0 });
    const lookup = tool({ name: "lookup", description: "Weather by city", schema: z.object({ city: z.string() }), execute: ({ city }) => `rain in ${city}` });
    const agent = new Agent({ role: "Forecaster", goal: "Forecast", backstory: "A forecaster.", llm, tools: [lookup] });
    const streaming = await agent.kickoff("Weather in Bergen?", { stream: true });
    const chunks: StreamChunk[] = [];
    for await (const chunk of streaming) chunks.push(chunk);
    expect(chunks.filter((c) => c.chunkType === "tool_call").map((c) => c.toolCall)).toEqual([expect.objectContaining({ name: "lookup", arguments: { city: "Bergen" } })]);
    expect(chunks.filter((c) => c.chunkType === "text").map((c) => c.content).join("")).toBe("Checking.Rainy in Bergen");
    expect((await streaming.result).raw).toBe("Rainy in Bergen");
    expect(server.requests[0]!.path).toBe("/v1/messages");
  });

  it("cancels the run when the consumer stops iterating", async () => {
    const llm = await mockLLM({ responses: ["one two three four five six"], beforeStreamEvent: ({ index }) => (index >= 2 ? new Promise<void>(() => undefined) : undefined) });
    const agent = new Agent({ role: "Writer", goal: "Write", backstory: "A writer.", llm });
    const crew = new Crew({ agents: [agent], tasks: [task("Write", agent)] });
    const failed: unknown[] = [];
    const off = eventBus.on("crew_kickoff_failed", (e) => void failed.push(e));
    try {
      const streaming = await crew.kickoff({}, { stream: true });
      for await (const chunk of streaming) {
        expect(chunk.content).toBe("one ");
        break;
      }
      await expect(streaming.result).rejects.toBeInstanceOf(KickoffAbortedError);
      expect(failed).toMatchObject([{ reason: "aborted" }]);
    } finally {
      off();
    }
  });
});

describe("streaming without a streaming model", () => {
  it("gives a user-written model's whole reply as one chunk", async () => {
    const custom = {
      model: "custom/whole",
      call: () => Promise.resolve({ text: "Final Answer: all at once", usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } }),
      supportsFunctionCalling: () => false,
      contextWindowSize: () => 8000,
    };
    const agent = new Agent({ role: "Plain", goal: "Answer", backstory: "Plain.", llm: custom });
    const streaming = await agent.kickoff("Say it", { stream: true });
    const chunks: StreamChunk[] = [];
    for await (const chunk of streaming) chunks.push(chunk);
    expect(chunks).toEqual([{ content: "Final Answer: all at once", chunkType: "text", taskName: "", taskIndex: -1, agentRole: "Plain" }]);
    expect((await streaming.result).raw).toBe("all at once");
  });

  it("tags a flow's chunks with the method and kickoffForEach's with the run", async () => {
    const { agent } = fakeAgent("Poet", [final("roses are red"), final("violets are blue")]);
    const crew = new Crew({ agents: [agent], tasks: [task("Write", agent)] });
    class PoemFlow extends Flow {
      @start()
      async compose() {
        return (await crew.kickoff()).raw;
      }
    }
    const flowStream = await new PoemFlow().kickoff({}, { stream: true });
    const flowChunks: StreamChunk[] = [];
    for await (const chunk of flowStream) flowChunks.push(chunk);
    expect(await flowStream.result).toBe("roses are red");
    expect(flowChunks.length).toBeGreaterThan(1);
    expect(flowChunks.every((c) => c.methodName === "compose" && c.agentRole === "Poet" && c.taskIndex === 0)).toBe(true);

    const { agent: batchAgent } = fakeAgent("Poet", [final("first run"), final("second run")]);
    const batch = new Crew({ agents: [batchAgent], tasks: [task("Write {n}", batchAgent)] });
    const batchStream = await batch.kickoffForEach([{ n: 1 }, { n: 2 }], { stream: true });
    const byRun = new Map<number, string>();
    for await (const chunk of batchStream) byRun.set(chunk.runIndex!, (byRun.get(chunk.runIndex!) ?? "") + chunk.content);
    expect(byRun.get(0)).toContain("first run");
    expect(byRun.get(1)).toContain("second run");
    expect((await batchStream.result).map((o) => o.raw)).toEqual(["first run", "second run"]);
  });
});
