import { afterEach, describe, expect, it } from "vitest";
import type { RpmLimiter } from "../../src/agent/index.js";
import { Crew, DEFAULT_FOR_EACH_CONCURRENCY } from "../../src/crew/index.js";
import { eventBus } from "../../src/events/index.js";
import type { ChatMessage } from "../../src/llm/types.js";
import { FakeLLM } from "../../src/testing/index.js";
import { fakeAgent, final, task, userText } from "./helpers.js";

afterEach(() => eventBus.clear());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const numberIn = (messages: ChatMessage[]) => Number(/Handle item (\d+)/.exec(messages.map((m) => m.content).join("\n"))?.[1]);

/** A FakeLLM that answers "done <n>" after a delay and records the most calls in flight at once. */
function trackingLLM(delayFor: (n: number) => number) {
  const stats = { inFlight: 0, max: 0 };
  const llm = new FakeLLM(
    async (messages) => {
      stats.inFlight++;
      stats.max = Math.max(stats.max, stats.inFlight);
      const n = numberIn(messages);
      await sleep(delayFor(n));
      stats.inFlight--;
      return final(`done ${n}`);
    },
    { usage: { promptTokens: 4, completionTokens: 1, totalTokens: 5 } },
  );
  return { llm, stats };
}

describe("kickoffForEach", () => {
  it("returns outputs in input order with at most `concurrency` runs at once, usage summed", async () => {
    // Earlier inputs take longer, so finishing order is the reverse of input order.
    const { llm, stats } = trackingLLM((n) => 80 - n * 10);
    const a = fakeAgent("Worker", [], {}, { llm });
    const crew = new Crew({ agents: [a.agent], tasks: [task("Handle item {n}", a.agent)] });
    const inputs = [1, 2, 3, 4, 5, 6].map((n) => ({ n }));
    const outputs = await crew.kickoffForEach(inputs, { concurrency: 2 });
    expect(outputs.map((o) => o.raw)).toEqual(["done 1", "done 2", "done 3", "done 4", "done 5", "done 6"]);
    expect(stats.max).toBe(2);
    expect(crew.usageMetrics).toEqual({ promptTokens: 24, completionTokens: 6, totalTokens: 30, successfulRequests: 6 });
    // The crew itself ran nothing: its task still has its placeholder and no output.
    expect(crew.tasks[0]!.description).toBe("Handle item {n}");
    expect(crew.tasks[0]!.output).toBeUndefined();
  });

  it("runs one copy at a time by default, so a scripted model answers the runs in order (CrewAI's kickoff_for_each)", async () => {
    expect(DEFAULT_FOR_EACH_CONCURRENCY).toBe(1);
    const { llm, stats } = trackingLLM(() => 5);
    const a = fakeAgent("Worker", [], {}, { llm });
    const crew = new Crew({ agents: [a.agent], tasks: [task("Handle item {n}", a.agent)] });
    expect(await crew.kickoffForEach(Array.from({ length: 3 }, (_, n) => ({ n })))).toHaveLength(3);
    expect(stats.max).toBe(1);

    const scripted = fakeAgent("Writer", [final("draft 1"), final("final 1"), final("draft 2"), final("final 2")]);
    const twoSteps = new Crew({ agents: [scripted.agent], tasks: [task("Draft {n}", scripted.agent), task("Finish {n}", scripted.agent)] });
    const outputs = await twoSteps.kickoffForEach([{ n: 1 }, { n: 2 }]);
    expect(outputs.map((o) => o.tasksOutput.map((t) => t.raw))).toEqual([
      ["draft 1", "final 1"],
      ["draft 2", "final 2"],
    ]);
  });

  it("rejects with the first failure and starts nothing after it", async () => {
    let calls = 0;
    const llm = new FakeLLM((messages) => {
      calls++;
      return numberIn(messages) === 1 ? new Error("item 1 failed") : final("ok");
    });
    const a = fakeAgent("Worker", [], {}, { llm, maxRetryLimit: 0 });
    const crew = new Crew({ agents: [a.agent], tasks: [task("Handle item {n}", a.agent)] });
    await expect(crew.kickoffForEach([{ n: 1 }, { n: 2 }, { n: 3 }], { concurrency: 1 })).rejects.toThrow("item 1 failed");
    expect(calls).toBe(1);
  });

  it("shares the crew's request limiter between the runs, so maxRpm holds for the whole batch", async () => {
    const copies: Crew[] = [];
    const limiters = new Set<RpmLimiter>();
    const llm = new FakeLLM(() => {
      for (const c of copies) if (c.agents[0]!.crewRpmLimiter) limiters.add(c.agents[0]!.crewRpmLimiter as RpmLimiter);
      return final("ok");
    });
    const a = fakeAgent("Worker", [], {}, { llm });
    const crew = new Crew({ agents: [a.agent], tasks: [task("Handle item {n}", a.agent)], maxRpm: 100 });
    // Record the copies the runs work on.
    const copy = crew.copy.bind(crew);
    crew.copy = () => {
      const made = copy();
      copies.push(made);
      return made;
    };
    await crew.kickoffForEach([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(copies).toHaveLength(3);
    expect(limiters.size).toBe(1);
    expect([...limiters][0]!.inWindow).toBe(3);
    for (const c of copies) expect(c.agents[0]!.crewRpmLimiter).toBeUndefined();
  });

  it("rejects a concurrency that is not a positive integer", async () => {
    const a = fakeAgent("Worker", []);
    const crew = new Crew({ agents: [a.agent], tasks: [task("x", a.agent)] });
    await expect(crew.kickoffForEach([{}], { concurrency: 0 })).rejects.toThrow(RangeError);
  });
});

describe("copy", () => {
  it("copies agents and tasks, maps context to the copies, and keeps the options", async () => {
    const llm = new FakeLLM((_messages, i) => final(`answer ${i}`));
    const a = fakeAgent("Researcher", [], {}, { llm });
    const b = fakeAgent("Writer", [], {}, { llm });
    const first = task("first", a.agent);
    const second = task("second", b.agent, { context: [first] });
    const crew = new Crew({ agents: [a.agent, b.agent], tasks: [first, second], name: "original", maxRpm: 30 });
    const copy = crew.copy();
    expect(copy).not.toBe(crew);
    expect(copy.id).not.toBe(crew.id);
    expect(copy.name).toBe("original");
    expect(copy.options.maxRpm).toBe(30);
    expect(copy.agents[0]).not.toBe(a.agent);
    expect(copy.agents[0]!.role).toBe("Researcher");
    expect(copy.tasks[0]).not.toBe(first);
    expect(copy.tasks[0]!.agent).toBe(copy.agents[0]);
    expect(copy.tasks[1]!.agent).toBe(copy.agents[1]);
    expect(copy.tasks[1]!.context).toEqual([copy.tasks[0]]);

    const output = await copy.kickoff();
    expect(output.tasksOutput).toHaveLength(2);
    expect(first.output).toBeUndefined();
    expect(second.output).toBeUndefined();
    expect(a.agent.usageMetrics.successfulRequests).toBe(0);
    expect(userText(llm, 1)).toContain("answer 0");
  });
});
