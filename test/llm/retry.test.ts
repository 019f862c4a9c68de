import { afterEach, describe, expect, it, vi } from "vitest";
import { LLMBadRequestError, LLMServerError } from "../../src/llm/index.js";
import { backoffDelayMs, parseRetryAfter, retryDelayMs, sleep, withRetries } from "../../src/llm/retry.js";

const opts = { provider: "openai", model: "gpt-4o" };

afterEach(() => {
  vi.useRealTimers();
});

describe("parseRetryAfter", () => {
  it("reads retry-after-ms, retry-after seconds and HTTP dates", () => {
    expect(parseRetryAfter({ "retry-after-ms": "250" })).toBe(250);
    expect(parseRetryAfter({ "Retry-After": "2" })).toBe(2000);
    expect(parseRetryAfter({ "retry-after-ms": "10", "retry-after": "5" })).toBe(10);
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfter({ "retry-after": "Wed, 01 Jan 2025 00:00:03 GMT" }, now)).toBe(3000);
    expect(parseRetryAfter({ "retry-after": "garbage" })).toBeUndefined();
    expect(parseRetryAfter({})).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});

describe("delays", () => {
  it("backs off exponentially with full jitter, capped", () => {
    expect(backoffDelayMs(1, 1000, 30_000, () => 1)).toBe(1000);
    expect(backoffDelayMs(3, 1000, 30_000, () => 1)).toBe(4000);
    expect(backoffDelayMs(10, 1000, 30_000, () => 1)).toBe(30_000);
    expect(backoffDelayMs(3, 1000, 30_000, () => 0.5)).toBe(2000);
    expect(backoffDelayMs(3, 1000, 30_000, () => 0)).toBe(0);
  });

  it("waits what Retry-After says when under the cap, else the cap", () => {
    const policy = { maxRetries: 3, baseDelayMs: 1000, maxDelayMs: 30_000 };
    expect(retryDelayMs(1, new LLMServerError("x", { ...opts, retryAfterMs: 7000 }), policy, () => 0)).toBe(7000);
    expect(retryDelayMs(1, new LLMServerError("x", { ...opts, retryAfterMs: 90_000 }), policy, () => 0)).toBe(30_000);
  });
});

describe("sleep", () => {
  it("clears its timer on abort, leaving nothing to keep the process alive", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    expect(vi.getTimerCount()).toBe(1);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: "AbortError" });
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("withRetries", () => {
  it("retries retryable LLMErrors and records the attempts", async () => {
    let calls = 0;
    const error = await withRetries(
      async () => {
        calls++;
        throw new LLMServerError("openai/gpt-4o: HTTP 500.", { ...opts, status: 500 });
      },
      { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 1 },
    ).catch((e: unknown) => e);
    expect(calls).toBe(3);
    expect(error).toBeInstanceOf(LLMServerError);
    expect((error as LLMServerError).attempts).toBe(3);
    expect((error as LLMServerError).message).toBe("openai/gpt-4o: HTTP 500. Gave up after 3 attempts.");
  });

  it("does not retry other errors", async () => {
    let calls = 0;
    const failing = async () => {
      calls++;
      throw new LLMBadRequestError("bad", { ...opts, status: 400 });
    };
    await expect(withRetries(failing, { maxRetries: 5, baseDelayMs: 1, maxDelayMs: 1 })).rejects.toBeInstanceOf(LLMBadRequestError);
    await expect(withRetries(() => Promise.reject(new TypeError("bug")), { maxRetries: 5, baseDelayMs: 1, maxDelayMs: 1 })).rejects.toBeInstanceOf(TypeError);
    expect(calls).toBe(1);
  });
});
