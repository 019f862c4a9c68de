import { afterEach, describe, expect, it, vi } from "vitest";
import { LLM, LLMOptionsError, parseModelId, resolveLLM, SUPPORTED_PROVIDERS } from "../../src/llm/index.js";
import { ollamaBaseURL } from "../../src/llm/providerModel.js";
import { FakeLLM } from "../../src/testing/FakeLLM.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("resolveLLM", () => {
  it("uses CREWTS_MODEL, then MODEL, then openai/gpt-4o-mini", () => {
    vi.stubEnv("CREWTS_MODEL", "anthropic/claude-sonnet-4-5");
    vi.stubEnv("MODEL", "ollama/llama3.1");
    expect(resolveLLM().model).toBe("anthropic/claude-sonnet-4-5");
    vi.stubEnv("CREWTS_MODEL", "");
    expect(resolveLLM().model).toBe("ollama/llama3.1");
    vi.stubEnv("MODEL", "");
    expect(resolveLLM().model).toBe("openai/gpt-4o-mini");
  });

  it("builds an LLM from a string without needing a key (keys are checked at call time)", () => {
    vi.stubEnv("OPENAI_API_KEY", "");
    const llm = resolveLLM("gpt-4o");
    expect(llm).toBeInstanceOf(LLM);
    expect(llm.model).toBe("openai/gpt-4o");
  });

  it("returns a BaseLLM as is and rejects anything else with a TypeError", () => {
    const fake = new FakeLLM(["x"]);
    expect(resolveLLM(fake)).toBe(fake);
    expect(() => resolveLLM({ call: () => undefined } as never)).toThrow(TypeError);
    expect(() => resolveLLM({ call: () => undefined } as never)).toThrow(/missing model, supportsFunctionCalling, contextWindowSize/);
    expect(() => resolveLLM(42 as never)).toThrow(/model string/);
  });
});

describe("model strings", () => {
  it("splits provider/model on the first slash", () => {
    expect(parseModelId("openai-compatible/meta-llama/Llama-3.1-8B")).toEqual({ provider: "openai-compatible", name: "meta-llama/Llama-3.1-8B" });
    expect(parseModelId("ollama/qwen2.5:7b")).toEqual({ provider: "ollama", name: "qwen2.5:7b" });
  });

  it("treats bare gpt-/o1/o3 names as openai and claude- names as anthropic", () => {
    expect(parseModelId("gpt-4o").provider).toBe("openai");
    expect(parseModelId("o3-mini").provider).toBe("openai");
    expect(parseModelId("o1").provider).toBe("openai");
    expect(parseModelId("claude-sonnet-4-5").provider).toBe("anthropic");
  });

  it("names the supported providers when the provider is unknown", () => {
    for (const model of ["groq/llama3", "llama3", "gemini/gemini-pro"]) {
      expect(() => parseModelId(model)).toThrow(LLMOptionsError);
      expect(() => parseModelId(model)).toThrow(SUPPORTED_PROVIDERS.join(", "));
    }
    expect(() => parseModelId("openai/")).toThrow(/no model name/);
  });
});

describe("LLM options", () => {
  it("names the bad field", () => {
    expect(() => new LLM({ model: "openai/gpt-4o", temperature: 5 })).toThrow(/temperature/);
    expect(() => new LLM({ model: "openai/gpt-4o", maxRetries: -1 })).toThrow(/maxRetries/);
    expect(() => new LLM({ model: "openai/gpt-4o", baseURL: "not a url" })).toThrow(/baseURL/);
    expect(() => new LLM({ model: "openai/gpt-4o", retry: { baseDelayMs: -5 } })).toThrow(/retry\.baseDelayMs/);
    expect(() => new LLM({ model: "openai/gpt-4o", base_url: "http://x" } as never)).toThrow(/base_url/);
    expect(() => new LLM({ model: "" })).toThrow(/model/);
    expect(() => new LLM(undefined as never)).toThrow(LLMOptionsError);
  });

  it("requires a baseURL for openai-compatible", () => {
    expect(() => new LLM({ model: "openai-compatible/my-model" })).toThrow(/baseURL/);
  });
});

describe("capabilities", () => {
  it("knows which models call tools", () => {
    expect(new LLM({ model: "openai/gpt-4o" }).supportsFunctionCalling()).toBe(true);
    expect(new LLM({ model: "anthropic/claude-haiku-4-5" }).supportsFunctionCalling()).toBe(true);
    expect(new LLM({ model: "ollama/llama3.1:8b" }).supportsFunctionCalling()).toBe(true);
    expect(new LLM({ model: "ollama/qwen2.5:14b" }).supportsFunctionCalling()).toBe(true);
    expect(new LLM({ model: "ollama/mistral-nemo" }).supportsFunctionCalling()).toBe(true);
    expect(new LLM({ model: "ollama/llama3" }).supportsFunctionCalling()).toBe(false);
    expect(new LLM({ model: "ollama/gemma2" }).supportsFunctionCalling()).toBe(false);
    // Servers speaking the chat completions API take tools; one that does not is declared with functionCalling: false.
    expect(new LLM({ model: "openai-compatible/x", baseURL: "http://localhost:1/v1" }).supportsFunctionCalling()).toBe(true);
    expect(new LLM({ model: "openai-compatible/x", baseURL: "http://localhost:1/v1", functionCalling: false }).supportsFunctionCalling()).toBe(false);
  });

  it("knows which models reject stop words", () => {
    for (const model of ["openai/o1", "openai/o3-mini", "openai/o4-mini", "openai/gpt-5", "openai/gpt-5-mini"]) {
      expect(new LLM({ model }).supportsStopWords()).toBe(false);
    }
    for (const model of ["openai/gpt-4o", "anthropic/claude-sonnet-4-5", "ollama/llama3.1"]) {
      expect(new LLM({ model }).supportsStopWords()).toBe(true);
    }
  });
});

describe("ollamaBaseURL", () => {
  it("reads OLLAMA_HOST the way Ollama does", () => {
    expect(ollamaBaseURL("http://localhost:11434")).toBe("http://localhost:11434/v1");
    expect(ollamaBaseURL("http://localhost:11434/")).toBe("http://localhost:11434/v1");
    expect(ollamaBaseURL("http://gpu-box:8080/v1")).toBe("http://gpu-box:8080/v1");
    expect(ollamaBaseURL("10.0.0.5")).toBe("http://10.0.0.5:11434/v1");
    expect(ollamaBaseURL("10.0.0.5:9999")).toBe("http://10.0.0.5:9999/v1");
    expect(ollamaBaseURL("https://ollama.example.com")).toBe("https://ollama.example.com/v1");
  });
});
