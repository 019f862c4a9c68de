import { afterEach, describe, expect, it, vi } from "vitest";
import type { ChatMessage } from "../../src/llm/index.js";
import { FakeLLM, FakeLLMExhaustedError, type FakeResponse } from "../../src/testing/index.js";

const ask = (content: string): ChatMessage[] => [{ role: "user", content }];

afterEach(() => {
  vi.useRealTimers();
});

describe("FakeLLM", () => {
  it("answers scripted responses in order and records every call as it was made", async () => {
    const llm = new FakeLLM(["first", { text: "second" }]);
    const messages = ask("one");
    expect((await llm.call(messages)).text).toBe("first");
    messages.push({ role: "assistant", content: "first" });
    expect((await llm.call(messages, { stop: ["X"] })).text).toBe("second");
    expect(llm.calls.map((call) => call.messages.length)).toEqual([1, 2]);
    expect(llm.calls[1]?.options.stop).toEqual(["X"]);
    expect(llm.remaining).toBe(0);
  });

  it("with record: false counts calls and keeps no copy of them, still answering the script in order", async () => {
    const llm = new FakeLLM(["first", "second", "third"], { record: false });
    expect((await llm.call(ask("one"))).text).toBe("first");
    expect((await llm.call(ask("two"))).text).toBe("second");
    expect(llm.calls).toEqual([]);
    expect(llm.callCount).toBe(2);
    expect(llm.remaining).toBe(1);
    const recording = new FakeLLM(() => "ok");
    await recording.call(ask("x"));
    expect([recording.callCount, recording.calls.length]).toEqual([1, 1]);
  });

  it("throws a clear error when the script runs out", async () => {
    const llm = new FakeLLM(["only"]);
    await llm.call(ask("a"));
    const error = await llm.call(ask("what now?")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FakeLLMExhaustedError);
    expect((error as Error).message).toMatch(/no scripted response left: it was given 1 and this is call #2/);
    expect((error as Error).message).toContain('"what now?"');
  });

  it("computes answers with a function of the messages, the call index and the options", async () => {
    const llm = new FakeLLM((messages, index, options) => `${index}:${messages.at(-1)?.content}:${options.source?.agentRole}`);
    expect((await llm.call(ask("hi"), { source: { agentRole: "Writer" } })).text).toBe("0:hi:Writer");
    expect((await llm.call(ask("again"))).text).toBe("1:again:undefined");
    expect(llm.remaining).toBe(0);
  });

  it("explains a response that is not one, instead of failing deep inside", async () => {
    const llm = new FakeLLM((() => undefined) as unknown as () => FakeResponse);
    await expect(llm.call(ask("x"))).rejects.toThrow(/response for call #1 must be a string, an Error or \{ text\?, toolCalls\?, usage\? \}, got undefined/);
  });

  it("throws a scripted Error as the call's failure", async () => {
    const down = new Error("provider down");
    await expect(new FakeLLM([down]).call(ask("x"))).rejects.toBe(down);
  });

  it("returns tool calls with generated ids and a tool-calls finish reason", async () => {
    const llm = new FakeLLM([{ toolCalls: [{ name: "multiplier", arguments: { a: 2 } }, { id: "mine", name: "echo", arguments: "{}" }] }]);
    const result = await llm.call(ask("x"));
    expect(result.toolCalls).toEqual([
      { id: "call_0_0", name: "multiplier", arguments: { a: 2 } },
      { id: "mine", name: "echo", arguments: "{}" },
    ]);
    expect(result).toMatchObject({ text: "", finishReason: "tool-calls" });
  });

  it("reports scripted usage, then the usage option, else about 4 characters a token", async () => {
    const llm = new FakeLLM([{ text: "abcd", usage: { promptTokens: 7 } }, "abcdefgh"], { usage: { completionTokens: 3 } });
    expect((await llm.call(ask("12345678"))).usage).toEqual({ promptTokens: 7, completionTokens: 3, totalTokens: 10 });
    expect((await llm.call(ask("12345678"))).usage).toEqual({ promptTokens: 2, completionTokens: 3, totalTokens: 5 });
    expect((await new FakeLLM(["abcdefgh"]).call(ask("1234"))).usage).toEqual({ promptTokens: 1, completionTokens: 2, totalTokens: 3 });
  });

  it("cuts the text at the earliest stop word, as a real model stops there", async () => {
    const llm = new FakeLLM(["Thought: x\nObservation: made up", "abXcd"]);
    expect((await llm.call(ask("q"), { stop: ["\nObservation:"] })).text).toBe("Thought: x");
    // "bX" starts before "Xc" even though the two overlap.
    expect((await llm.call(ask("q"), { stop: ["Xc", "bX"] })).text).toBe("a");
  });

  it("streams the text to onToken in word-sized deltas", async () => {
    const tokens: string[] = [];
    const result = await new FakeLLM(["one two three"]).call(ask("q"), { stream: true, onToken: (t) => tokens.push(t) });
    expect(tokens).toEqual(["one ", "two ", "three"]);
    expect(tokens.join("")).toBe(result.text);
  });

  it("waits latencyMs on a timer that an abort clears", async () => {
    vi.useFakeTimers();
    const llm = new FakeLLM(["slow", "never"], { latencyMs: 5_000 });
    const answer = llm.call(ask("q"));
    await vi.advanceTimersByTimeAsync(5_000);
    expect((await answer).text).toBe("slow");

    const controller = new AbortController();
    const aborted = llm.call(ask("q"), { signal: controller.signal });
    await vi.advanceTimersByTimeAsync(10);
    expect(vi.getTimerCount()).toBe(1);
    controller.abort(new Error("stopped"));
    await expect(aborted).rejects.toThrow("stopped");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("rejects a call whose signal is already aborted without recording it, as LLM does", async () => {
    const llm = new FakeLLM(["x"]);
    await expect(llm.call(ask("q"), { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: "AbortError" });
    expect(llm.calls).toHaveLength(0);
    expect(llm.remaining).toBe(1);
  });

  it("reports the capabilities it is given", () => {
    const llm = new FakeLLM([], { functionCalling: true, contextWindow: 1_000, model: "fake/small" });
    expect([llm.supportsFunctionCalling(), llm.contextWindowSize(), llm.model]).toEqual([true, 1_000, "fake/small"]);
    const defaults = new FakeLLM([]);
    expect([defaults.supportsFunctionCalling(), defaults.contextWindowSize(), defaults.model]).toEqual([false, 128_000, "fake/fake-llm"]);
    expect(() => new FakeLLM("answer" as never)).toThrow(TypeError);
  });
});
