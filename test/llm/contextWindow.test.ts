import { describe, expect, it } from "vitest";
import { CONTEXT_WINDOW_USAGE_RATIO, contextWindowOf, LLM } from "../../src/llm/index.js";

describe("context windows", () => {
  it("matches the longest prefix of the model name", () => {
    expect(contextWindowOf("gpt-4o-mini-2024-07-18")).toBe(128_000);
    expect(contextWindowOf("openai/gpt-4")).toBe(8_192);
    expect(contextWindowOf("gpt-4-turbo-2024-04-09")).toBe(128_000);
    expect(contextWindowOf("gpt-4.1-mini")).toBe(1_047_576);
    expect(contextWindowOf("gpt-3.5-turbo")).toBe(16_385);
    expect(contextWindowOf("o1-mini")).toBe(128_000);
    expect(contextWindowOf("o3")).toBe(200_000);
    expect(contextWindowOf("gpt-5-nano")).toBe(400_000);
    expect(contextWindowOf("claude-3-7-sonnet-latest")).toBe(200_000);
    expect(contextWindowOf("claude-sonnet-4-5")).toBe(200_000);
    expect(contextWindowOf("llama3:8b")).toBe(8_192);
    expect(contextWindowOf("llama3.1:70b")).toBe(131_072);
    expect(contextWindowOf("ollama/qwen2.5:7b")).toBe(32_768);
    expect(contextWindowOf("openai-compatible/meta-llama/llama3.3")).toBe(131_072);
    expect(contextWindowOf("mixtral")).toBe(32_768);
  });

  it("uses 8192 for unknown models", () => {
    expect(contextWindowOf("my-private-model")).toBe(8_192);
  });

  it("reports 85% of the window as the usable size, as CrewAI", () => {
    expect(CONTEXT_WINDOW_USAGE_RATIO).toBe(0.85);
    expect(new LLM({ model: "openai/gpt-4o" }).contextWindowSize()).toBe(108_800);
    expect(new LLM({ model: "openai-compatible/unknown", baseURL: "http://localhost:1/v1" }).contextWindowSize()).toBe(Math.floor(8192 * 0.85));
    expect(new LLM({ model: "ollama/custom", contextWindow: 4096 }).contextWindowSize()).toBe(Math.floor(4096 * 0.85));
  });
});
