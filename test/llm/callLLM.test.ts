import { describe, expect, it, vi } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { eventBus, type CrewtsEvent } from "../../src/events/index.js";
import { callLLM, LLMServerError, type BaseLLM, type ChatMessage, type LLMResult } from "../../src/llm/index.js";
import { FakeLLM } from "../../src/testing/FakeLLM.js";
import { mockServerPerTest, PROVIDER_SETUPS, recordEvents, SECRET_KEY } from "./providerSetups.js";

const startServer = mockServerPerTest();

const source = { agentId: "a1", agentRole: "Researcher", taskId: "t1", crewId: "c1" };

describe("callLLM", () => {
  it("emits started and completed events with one callId, source ids, usage and duration", async () => {
    const events = recordEvents();
    const llm = new FakeLLM([{ text: "done", usage: { promptTokens: 3, completionTokens: 2, totalTokens: 5 } }]);
    const result = await callLLM(llm, [{ role: "user", content: "go" }], { source, tools: [{ name: "search", description: "d", parameters: {} }] });
    expect(result.text).toBe("done");
    expect(events.map((event) => event.type)).toEqual(["llm_call_started", "llm_call_completed"]);
    const [started, completed] = events as [CrewtsEvent<"llm_call_started">, CrewtsEvent<"llm_call_completed">];
    expect(started).toMatchObject({ ...source, model: "fake/fake-llm", tools: ["search"], messages: [{ role: "user", content: "go" }] });
    expect(completed).toMatchObject({ ...source, callId: started.callId, response: "done", toolCalls: [], usage: { promptTokens: 3, completionTokens: 2, totalTokens: 5 } });
    expect(completed.durationMs).toBeGreaterThanOrEqual(0);
    expect(started.callId).toMatch(/^[0-9a-f-]{36}$/);
    expect(llm.calls[0]?.options.callId).toBe(started.callId);
  });

  it("emits llm_call_failed with the status and rethrows", async () => {
    const server = await startServer({ responses: ["never"], faults: { 0: { status: 500 }, 1: { status: 500 } } });
    const events = recordEvents();
    const llm = PROVIDER_SETUPS[0]!.create(server, { maxRetries: 1 });
    await expect(callLLM(llm, [{ role: "user", content: "go" }], { source })).rejects.toBeInstanceOf(LLMServerError);
    const types = events.map((event) => event.type);
    expect(types).toEqual(["llm_call_started", "llm_call_retry", "llm_call_failed"]);
    const callIds = new Set(events.map((event) => (event as CrewtsEvent<"llm_call_started">).callId));
    expect(callIds.size).toBe(1);
    expect(events[2]).toMatchObject({ ...source, status: 500, model: "openai/gpt-4o-mini" });
    expect((events[2] as CrewtsEvent<"llm_call_failed">).error).toContain("2 attempts");
  });

  it("redacts keys from the failure of a user-written model", async () => {
    const events = recordEvents();
    const llm = new FakeLLM([new Error(`upstream said: invalid key ${SECRET_KEY} / Bearer abcdefghijklmnop`)]);
    await expect(callLLM(llm, [{ role: "user", content: "go" }])).rejects.toThrow();
    const failed = events.find((event) => event.type === "llm_call_failed") as CrewtsEvent<"llm_call_failed">;
    expect(failed.error).not.toContain(SECRET_KEY);
    expect(failed.error).not.toContain("abcdefghijklmnop");
    expect(failed.error).toContain("[redacted]");
  });

  it("builds no payload when nobody listens", async () => {
    const emit = vi.spyOn(eventBus, "emit");
    const llm = new FakeLLM(["ok", new Error("down")]);
    await expect(callLLM(llm, [{ role: "user", content: "go" }])).resolves.toMatchObject({ text: "ok" });
    await expect(callLLM(llm, [{ role: "user", content: "go" }])).rejects.toThrow("down");
    expect(emit).not.toHaveBeenCalled();
    emit.mockRestore();
  });

  it("reports the messages as sent, not as the caller's list grows afterwards", async () => {
    const events = recordEvents();
    const messages: ChatMessage[] = [{ role: "user", content: "go" }];
    await callLLM(new FakeLLM(["ok"]), messages);
    messages.push({ role: "assistant", content: "ok" });
    expect((events[0] as CrewtsEvent<"llm_call_started">).messages).toEqual([{ role: "user", content: "go" }]);
  });

  it("emits completed events for streamed calls over HTTP, with usage", async () => {
    const server = await startServer({ responses: [{ text: "streamed answer", usage: { promptTokens: 7, completionTokens: 3 } }] });
    const events = recordEvents();
    const llm = PROVIDER_SETUPS[0]!.create(server, { stream: true });
    await callLLM(llm, [{ role: "user", content: "go" }], { source });
    const chunks = events.filter((event) => event.type === "llm_stream_chunk");
    expect(chunks.length).toBeGreaterThan(1);
    const completed = events.find((event) => event.type === "llm_call_completed") as CrewtsEvent<"llm_call_completed">;
    expect(completed.usage).toEqual({ promptTokens: 7, completionTokens: 3, totalTokens: 10 });
    expect(new Set(events.map((event) => (event as CrewtsEvent<"llm_stream_chunk">).callId)).size).toBe(1);
  });

  it("normalizes what a user-written model returns", async () => {
    const bare: BaseLLM = {
      model: "custom/bare",
      call: async () => ({ text: "hi" }) as unknown as LLMResult,
      supportsFunctionCalling: () => false,
      contextWindowSize: () => 1000,
    };
    expect(await callLLM(bare, [])).toEqual({ text: "hi", usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } });
    const broken: BaseLLM = { ...bare, call: async () => 42 as unknown as LLMResult };
    await expect(callLLM(broken, [])).rejects.toThrow(/must resolve to/);
  });

  it("an agent reads a user-written model's replies the same way, with and without event listeners", async () => {
    const replies: unknown[] = ["Thought: ok\nFinal Answer: from a string", { text: "Final Answer: no usage" }, 42, { text: "Final Answer: counted", usage: { promptTokens: 4, completionTokens: 1 } }];
    const model: BaseLLM = {
      model: "custom/mixed",
      call: async () => replies.shift() as LLMResult,
      supportsFunctionCalling: () => false,
      contextWindowSize: () => 100_000,
    };
    const agent = new Agent({ role: "Echo", goal: "Echo", backstory: "Echoes", llm: model });
    expect((await agent.kickoff("one")).raw).toBe("from a string");
    expect((await agent.kickoff("two")).raw).toBe("no usage");
    await expect(agent.kickoff("three")).rejects.toThrow(/custom\/mixed: call\(\) must resolve to .* but got number/);
    // With a listener, the reply goes through callLLM's events path instead.
    const events = recordEvents();
    const counted = await agent.kickoff("four");
    expect(counted.raw).toBe("counted");
    expect(counted.usageMetrics).toMatchObject({ promptTokens: 4, completionTokens: 1, totalTokens: 5 });
    expect(events.some((event) => event.type === "llm_call_completed")).toBe(true);
    expect(replies).toEqual([]);
  });
});
