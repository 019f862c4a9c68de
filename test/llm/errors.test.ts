import { describe, expect, it } from "vitest";
import {
  LLMAuthenticationError,
  LLMBadRequestError,
  LLMConnectionError,
  LLMContextLengthExceededError,
  LLMError,
  LLMRateLimitError,
  LLMResponseError,
  LLMServerError,
  LLMTimeoutError,
} from "../../src/llm/index.js";

const where = { provider: "openai", model: "gpt-4o" };

describe("LLMError classes", () => {
  it("are retried by default only for transient failures, and the options can say otherwise", () => {
    const retried = [LLMRateLimitError, LLMServerError, LLMTimeoutError, LLMConnectionError];
    const final = [LLMError, LLMAuthenticationError, LLMBadRequestError, LLMContextLengthExceededError, LLMResponseError];
    expect(retried.map((Kind) => new Kind("x", where).retryable)).toEqual([true, true, true, true]);
    expect(final.map((Kind) => new Kind("x", where).retryable)).toEqual([false, false, false, false, false]);
    expect(new LLMRateLimitError("quota", { ...where, retryable: false }).retryable).toBe(false);
    expect(new LLMBadRequestError("409", { ...where, retryable: true }).retryable).toBe(true);
  });

  it("say how many attempts were made once retries end", () => {
    expect(new LLMServerError("HTTP 500.", where).recordAttempts(3).message).toBe("HTTP 500. Gave up after 3 attempts.");
    expect(new LLMBadRequestError("HTTP 400.", where).recordAttempts(1).message).toBe("HTTP 400.");
    const error = new LLMTimeoutError("slow.", { ...where, status: 408 });
    expect(error).toMatchObject({ name: "LLMTimeoutError", provider: "openai", model: "gpt-4o", status: 408, attempts: 1 });
    expect(error).toBeInstanceOf(LLMError);
  });
});
