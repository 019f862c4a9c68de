import { performance } from "node:perf_hooks";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, Crew, Flow, KickoffAbortedError, LLM, eventBus, start, tool } from "../../src/index.js";
import { startMockOpenAIServer, type MockOpenAIServer } from "../../src/testing/index.js";
import { fakeAgent, final, task } from "../crew/helpers.js";

// The contract: an abort stops the run within 100 ms.
const CANCEL_BOUND_MS = 100;

let server: MockOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function signalled(): { promise: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const promise = new Promise<void>((resolve) => (fire = resolve));
  return { promise, fire };
}

/** Aborts once `ready` has fired; resolves with how long the kickoff took to reject after that, and its error. */
async function abortWhen(ready: Promise<void>, controller: AbortController, running: Promise<unknown>): Promise<{ ms: number; error: unknown }> {
  const settled = running.then(
    () => ({ error: undefined as unknown, at: performance.now() }),
    (error: unknown) => ({ error, at: performance.now() }),
  );
  await ready;
  const abortedAt = performance.now();
  controller.abort();
  const { error, at } = await settled;
  return { ms: at - abortedAt, error };
}

describe("cancel", () => {
  it("aborts the HTTP request of a crew's LLM call and rejects with KickoffAbortedError", async () => {
    const arrived = signalled();
    // The responder never answers: only the abort can end the call.
    server = await startMockOpenAIServer({
      responses: () => {
        arrived.fire();
        return new Promise(() => undefined);
      },
    });
    const llm = new LLM({ model: "openai-compatible/m", baseURL: server.url, apiKey: "k", maxRetries: 0 });
    const agent = new Agent({ role: "Waiter", goal: "Wait", backstory: "Waits.", llm });
    const crew = new Crew({ agents: [agent], tasks: [task("Wait", agent)] });
    const failed: { reason?: string }[] = [];
    const off = eventBus.on("crew_kickoff_failed", (e) => void failed.push(e));
    const controller = new AbortController();
    try {
      const { ms, error } = await abortWhen(arrived.promise, controller, crew.kickoff({}, { signal: controller.signal }));
      expect(error).toBeInstanceOf(KickoffAbortedError);
      expect(ms).toBeLessThan(CANCEL_BOUND_MS);
      expect(failed).toEqual([expect.objectContaining({ reason: "aborted" })]);
    } finally {
      off();
    }
  });

  it("hands the signal to a running tool and does not wait for a tool that ignores it", async () => {
    const started = signalled();
    let toolSawAbort = false;
    const slow = tool({
      name: "slow",
      description: "Never finishes by itself",
      schema: z.object({}),
      execute: (_args, context) => {
        context?.signal?.addEventListener("abort", () => (toolSawAbort = true));
        started.fire();
        return new Promise(() => undefined);
      },
    });
    const { agent } = fakeAgent("Worker", [{ toolCalls: [{ name: "slow", arguments: {} }] }, final("never")], { functionCalling: true }, { tools: [slow] });
    const crew = new Crew({ agents: [agent], tasks: [task("Work", agent)] });
    const controller = new AbortController();
    const { ms, error } = await abortWhen(started.promise, controller, crew.kickoff({}, { signal: controller.signal }));
    expect(error).toBeInstanceOf(KickoffAbortedError);
    expect(toolSawAbort).toBe(true);
    expect(ms).toBeLessThan(CANCEL_BOUND_MS);
  });

  it("stops a flow whose method awaits something that never ends, with flow_failed reason aborted", async () => {
    const entered = signalled();
    class StuckFlow extends Flow {
      @start()
      async wait() {
        entered.fire();
        await new Promise(() => undefined);
      }
    }
    const failed: { reason?: string }[] = [];
    const off = eventBus.on("flow_failed", (e) => void failed.push(e));
    const controller = new AbortController();
    try {
      const { ms, error } = await abortWhen(entered.promise, controller, new StuckFlow().kickoff({}, { signal: controller.signal }));
      expect(error).toBeInstanceOf(KickoffAbortedError);
      expect(ms).toBeLessThan(CANCEL_BOUND_MS);
      expect(failed).toEqual([expect.objectContaining({ reason: "aborted" })]);
    } finally {
      off();
    }
  });

  it("cancels agent.kickoff, and an already-aborted signal runs nothing", async () => {
    const called = signalled();
    const { agent } = fakeAgent("Solo", () => {
      called.fire();
      return new Promise<string>(() => undefined);
    });
    const controller = new AbortController();
    const running = agent.kickoff("Go", { signal: controller.signal });
    const { ms, error } = await abortWhen(called.promise, controller, running);
    expect(error).toBeInstanceOf(KickoffAbortedError);
    expect(ms).toBeLessThan(CANCEL_BOUND_MS);

    const { agent: other, llm: untouched } = fakeAgent("Solo", [final("never")]);
    await expect(other.kickoff("Go", { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(KickoffAbortedError);
    expect(untouched.callCount).toBe(0);
  });
});
