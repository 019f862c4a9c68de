import { afterEach, describe, expect, it, vi } from "vitest";
import { LLMError, redactSecrets } from "../../src/llm/index.js";
import { scrubError } from "../../src/llm/redact.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("redactSecrets", () => {
  it("removes configured secrets and anything shaped like a key", () => {
    expect(redactSecrets("key my-custom-secret-value rejected", ["my-custom-secret-value"])).toBe("key [redacted] rejected");
    expect(redactSecrets("Incorrect API key provided: sk-proj-abcdefghijklmnop")).toBe("Incorrect API key provided: [redacted]");
    expect(redactSecrets("bad sk-ant-api03-abcdefghijkl")).toBe("bad [redacted]");
    expect(redactSecrets("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc")).toBe("Authorization: Bearer [redacted]");
    expect(redactSecrets('{"api_key": "abcdef123456"}')).toBe('{"api_key": "[redacted]"}');
    expect(redactSecrets("x-api-key=abcdef123456")).toBe("x-api-key=[redacted]");
  });

  it("removes keys held in the provider env vars", () => {
    vi.stubEnv("OPENAI_COMPATIBLE_API_KEY", "plain-looking-token-42");
    expect(redactSecrets("token plain-looking-token-42 refused")).toBe("token [redacted] refused");
  });

  it("leaves placeholder keys of local servers alone, so messages naming them stay readable", () => {
    vi.stubEnv("OLLAMA_API_KEY", "ollama");
    vi.stubEnv("OPENAI_COMPATIBLE_API_KEY", "EMPTY");
    expect(redactSecrets("ollama/llama3.1: HTTP 404, EMPTY response")).toBe("ollama/llama3.1: HTTP 404, EMPTY response");
  });

  it("leaves ordinary text alone", () => {
    expect(redactSecrets("The task-runner asked for a skeleton.")).toBe("The task-runner asked for a skeleton.");
  });

  it("is applied to every LLMError message", () => {
    expect(new LLMError("boom sk-abcdefghijklmnopqrstu", { provider: "openai", model: "m" }).message).toBe("boom [redacted]");
  });
});

describe("scrubError", () => {
  it("redacts message, stack, response body and parsed data down the cause chain", () => {
    const secret = "my-long-secret-value-42";
    const inner = Object.assign(new Error(`socket said ${secret}`), { data: { error: { message: `bad key ${secret}`, codes: [secret] } } });
    const outer = Object.assign(new Error("call failed", { cause: inner }), { responseBody: `{"key":"${secret}"}` });
    scrubError(outer, [secret]);
    expect(JSON.stringify([outer.message, outer.stack, outer.responseBody, inner.message, inner.stack, inner.data])).not.toContain(secret);
    expect(inner.data.error.message).toBe("bad key [redacted]");
  });
});

