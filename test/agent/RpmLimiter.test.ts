import { describe, expect, it } from "vitest";
import { RpmLimiter } from "../../src/agent/RpmLimiter.js";

describe("RpmLimiter", () => {
  it("lets maxRpm requests through at once and makes the next wait for the window to slide", async () => {
    const limiter = new RpmLimiter(2, 100);
    const start = Date.now();
    await limiter.acquire();
    await limiter.acquire();
    expect(Date.now() - start).toBeLessThan(50);
    await limiter.acquire();
    expect(Date.now() - start).toBeGreaterThanOrEqual(95);
  });

  it("stops waiting when aborted and does not block the queue", async () => {
    const limiter = new RpmLimiter(1, 60_000);
    await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort(new Error("cancelled"));
    await expect(waiting).rejects.toThrow("cancelled");
  });

  it("rejects a non-positive limit", () => {
    expect(() => new RpmLimiter(0)).toThrow(/positive integer/);
  });
});
