import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { Crew } from "../../src/crew/index.js";
import { eventBus } from "../../src/events/index.js";
import { LLM } from "../../src/llm/index.js";
import { InMemoryTaskOutputStore } from "../../src/storage/index.js";
import { Task } from "../../src/task/index.js";
import { startMockOpenAIServer } from "../../src/testing/index.js";
import { extractTraceContext, injectTraceContext, withTraceContext, type DisableTracing } from "../../src/tracing/index.js";
import { traceToMemory } from "./helpers.js";

let disable: DisableTracing | undefined;
afterEach(async () => {
  await disable?.();
  disable = undefined;
  eventBus.clear();
});

function crewOn(baseURL: string): Crew {
  const llm = new LLM({ model: "openai-compatible/mock-model", baseURL, apiKey: "sk-mockkey-1234567890" });
  const agent = new Agent({ role: "Writer", goal: "Write", backstory: "You write.", llm });
  return new Crew({ agents: [agent], tasks: [new Task({ description: "Write a line", expectedOutput: "A line", agent })], taskOutputStore: new InMemoryTaskOutputStore() });
}

describe("trace context over HTTP", () => {
  it("sends the llm.call span as W3C traceparent with each provider request, and GenAI attributes from the real provider", async () => {
    const server = await startMockOpenAIServer({ responses: [{ text: "Thought: done\nFinal Answer: a line", usage: { promptTokens: 20, completionTokens: 5 } }] });
    try {
      const t = await traceToMemory();
      disable = t.disable;
      await crewOn(server.url).kickoff();
      const call = t.spans().find((s) => s.name === "llm.call")!;
      const { traceId, spanId } = call.spanContext();
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]!.headers.traceparent).toBe(`00-${traceId}-${spanId}-01`);
      expect(call.attributes).toMatchObject({
        "gen_ai.system": "openai-compatible",
        "gen_ai.request.model": "mock-model",
        "gen_ai.usage.input_tokens": 20,
        "gen_ai.usage.output_tokens": 5,
        "gen_ai.response.finish_reasons": ["stop"],
      });
    } finally {
      await server.close();
    }
  });

  it("sends no traceparent while tracing is off", async () => {
    const server = await startMockOpenAIServer({ responses: ["Thought: done\nFinal Answer: a line"] });
    try {
      await crewOn(server.url).kickoff();
      expect(server.requests[0]!.headers.traceparent).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it("carries a trace across a queue: inject where a job is queued, withTraceContext where it is run", async () => {
    const t = await traceToMemory();
    disable = t.disable;
    const incoming = { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", tracestate: "vendor=1" };
    // The serving side: the caller's context goes into the queued job.
    const job = withTraceContext(extractTraceContext(incoming), () => injectTraceContext({ inputs: { topic: "x" } }));
    expect(job).toEqual({ inputs: { topic: "x" }, ...incoming });
    // The worker side: the run continues that trace.
    const server = await startMockOpenAIServer({ responses: ["Thought: done\nFinal Answer: a line"] });
    try {
      await withTraceContext(job, () => crewOn(server.url).kickoff());
    } finally {
      await server.close();
    }
    const root = t.spans().find((s) => s.name === "crew.kickoff")!;
    expect(root.spanContext().traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(root.parentSpanContext?.spanId).toBe("b7ad6b7169203331");
    expect(root.spanContext().traceState?.get("vendor")).toBe("1");
    expect(server.requests[0]!.headers.traceparent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
  });

  it("rejects malformed trace headers instead of continuing a broken trace", () => {
    for (const traceparent of ["", "00-abc-def-01", `00-${"0".repeat(32)}-${"1".repeat(16)}-01`, `ff-${"a".repeat(32)}-${"b".repeat(16)}-01`, `00-${"a".repeat(32)}-${"b".repeat(16)}-01-extra`]) {
      expect(extractTraceContext({ traceparent }), traceparent).toBeUndefined();
    }
    expect(extractTraceContext({ traceparent: [`00-${"a".repeat(32)}-${"b".repeat(16)}-00`] })).toEqual({ traceId: "a".repeat(32), spanId: "b".repeat(16), traceFlags: 0 });
    expect(injectTraceContext({})).toEqual({});
  });
});
