import { describe, expect, it } from "vitest";
import { fromSdkToolCalls, toModelMessages, toTokenUsage } from "../../src/llm/modelMessages.js";

describe("toModelMessages", () => {
  it("maps assistant tool calls and merges consecutive tool results into one tool message", () => {
    const messages = toModelMessages([
      { role: "system", content: "sys" },
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: "Calling both.",
        toolCalls: [
          { id: "a", name: "search", arguments: { q: "x" } },
          { id: "b", name: "fetch", arguments: "not json" },
        ],
      },
      { role: "tool", content: "found", toolCallId: "a", toolName: "search" },
      { role: "tool", content: "fetched", toolCallId: "b", toolName: "fetch" },
      { role: "assistant", content: "" },
    ]);
    expect(messages).toEqual([
      { role: "system", content: "sys" },
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Calling both." },
          { type: "tool-call", toolCallId: "a", toolName: "search", input: { q: "x" } },
          { type: "tool-call", toolCallId: "b", toolName: "fetch", input: "not json" },
        ],
      },
      {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: "a", toolName: "search", output: { type: "text", value: "found" } },
          { type: "tool-result", toolCallId: "b", toolName: "fetch", output: { type: "text", value: "fetched" } },
        ],
      },
    ]);
  });

  it("wraps unparsable arguments in an object for providers that need one", () => {
    const [message] = toModelMessages([{ role: "assistant", content: "", toolCalls: [{ id: "b", name: "f", arguments: "{oops" }] }], { objectToolInputs: true });
    expect(message).toEqual({ role: "assistant", content: [{ type: "tool-call", toolCallId: "b", toolName: "f", input: { input: "{oops" } }] });
  });
});

describe("SDK results", () => {
  it("keeps object arguments, parses JSON text and keeps anything else as text", () => {
    expect(
      fromSdkToolCalls([
        { toolCallId: "1", toolName: "t", input: { a: 1 } },
        { toolCallId: "2", toolName: "t", input: '{"a":2}' },
        { toolCallId: "3", toolName: "t", input: "{broken" },
        { toolCallId: "4", toolName: "t", input: [1, 2] },
        { toolCallId: "5", toolName: "t", input: undefined },
      ]).map((call) => call.arguments),
    ).toEqual([{ a: 1 }, { a: 2 }, "{broken", "[1,2]", {}]);
  });

  it("fills missing usage with zeros and a summed total", () => {
    expect(toTokenUsage(undefined)).toEqual({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });
    const partial = { inputTokens: 5, outputTokens: undefined, totalTokens: undefined } as Parameters<typeof toTokenUsage>[0];
    expect(toTokenUsage(partial)).toEqual({ promptTokens: 5, completionTokens: 0, totalTokens: 5 });
  });
});
