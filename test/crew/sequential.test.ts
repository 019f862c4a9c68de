import { performance } from "node:perf_hooks";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Crew, CONTEXT_DIVIDER } from "../../src/crew/index.js";
import { eventBus } from "../../src/events/index.js";
import { ConditionalTask } from "../../src/task/index.js";
import { FakeLLM } from "../../src/testing/index.js";
import { meetingResponders } from "../task/helpers.js";
import { fakeAgent, final, task, userText } from "./helpers.js";

afterEach(() => eventBus.clear());

describe("sequential process: context", () => {
  it("gives a task every earlier output by default, joined with CrewAI's divider", async () => {
    const a = fakeAgent("Researcher", [final("alpha")]);
    const b = fakeAgent("Analyst", [final("beta")]);
    const c = fakeAgent("Writer", [final("gamma")]);
    const crew = new Crew({ agents: [a.agent, b.agent, c.agent], tasks: [task("one", a.agent), task("two", b.agent), task("three", c.agent)] });
    const output = await crew.kickoff();
    expect(output.raw).toBe("gamma");
    expect(output.tasksOutput.map((o) => o.raw)).toEqual(["alpha", "beta", "gamma"]);
    expect(userText(a.llm)).not.toContain("This is the context you're working with");
    expect(userText(b.llm)).toContain("This is the context you're working with:\nalpha");
    expect(userText(c.llm)).toContain(`alpha${CONTEXT_DIVIDER}beta`);
    expect(CONTEXT_DIVIDER).toBe("\n\n----------\n\n");
  });

  it("uses only the listed context tasks, and none for []", async () => {
    const a = fakeAgent("Researcher", [final("alpha")]);
    const b = fakeAgent("Analyst", [final("beta")]);
    const c = fakeAgent("Writer", [final("gamma")]);
    const d = fakeAgent("Editor", [final("delta")]);
    const one = task("one", a.agent);
    const crew = new Crew({
      agents: [a.agent, b.agent, c.agent, d.agent],
      tasks: [one, task("two", b.agent), task("three", c.agent, { context: [one] }), task("four", d.agent, { context: [] })],
    });
    await crew.kickoff();
    expect(userText(c.llm)).toContain("This is the context you're working with:\nalpha");
    expect(userText(c.llm)).not.toContain("beta");
    expect(userText(d.llm)).not.toContain("This is the context you're working with");
  });
});

describe("sequential process: async tasks", () => {
  it("runs async tasks side by side and hands both outputs to the next sync task", async () => {
    const [fromA, fromB] = meetingResponders("from A", "from B");
    const a = fakeAgent("Researcher", fromA!);
    const b = fakeAgent("Analyst", fromB!);
    const c = fakeAgent("Writer", [final("summary")]);
    const crew = new Crew({
      agents: [a.agent, b.agent, c.agent],
      tasks: [task("a", a.agent, { asyncExecution: true }), task("b", b.agent, { asyncExecution: true }), task("c", c.agent)],
    });
    const output = await crew.kickoff();
    expect(userText(c.llm)).toContain(`from A${CONTEXT_DIVIDER}from B`);
    expect(output.tasksOutput.map((o) => o.raw)).toEqual(["from A", "from B", "summary"]);
  });

  it("finishes n parallel async tasks of latency L in well under n * L", async () => {
    const latency = 200;
    const n = 6;
    const stats = { inFlight: 0, max: 0 };
    const llm = new FakeLLM(
      async (_messages, index) => {
        stats.max = Math.max(stats.max, ++stats.inFlight);
        await new Promise((resolve) => setTimeout(resolve, latency));
        stats.inFlight--;
        return final(`part ${index}`);
      },
    );
    const workers = Array.from({ length: n }, (_, i) => fakeAgent(`Worker ${i}`, []).agent);
    for (const worker of workers) worker.llm = llm;
    const closer = fakeAgent("Closer", [final("all done")]);
    const tasks = [...workers.map((w, i) => task(`part ${i}`, w, { asyncExecution: true })), task("close", closer.agent)];
    const crew = new Crew({ agents: [...workers, closer.agent], tasks });
    const started = performance.now();
    const output = await crew.kickoff();
    expect(stats.max).toBe(n);
    // Generous: one after the other would take n * L = 1200 ms.
    expect(performance.now() - started).toBeLessThan(latency * 3);
    expect(output.tasksOutput).toHaveLength(n + 1);
    expect(userText(closer.llm).split(CONTEXT_DIVIDER)).toHaveLength(n);
  });

  it("awaits an async task at the end before returning", async () => {
    const a = fakeAgent("Researcher", [final("first")]);
    const b = fakeAgent("Analyst", [final("last")], { latencyMs: 50 });
    const crew = new Crew({ agents: [a.agent, b.agent], tasks: [task("a", a.agent), task("b", b.agent, { asyncExecution: true })] });
    const output = await crew.kickoff();
    expect(output.raw).toBe("last");
    expect(userText(b.llm)).toContain("first");
  });

  it("waits for async tasks still running before rethrowing a failure", async () => {
    const failing = fakeAgent("Researcher", () => new Error("model down"), {}, { maxRetryLimit: 0 });
    const slow = fakeAgent("Analyst", [final("slow")], { latencyMs: 150 });
    const end = fakeAgent("Writer", [final("never")]);
    const slowTask = task("b", slow.agent, { asyncExecution: true });
    const crew = new Crew({
      agents: [failing.agent, slow.agent, end.agent],
      tasks: [task("a", failing.agent, { asyncExecution: true }), slowTask, task("c", end.agent)],
    });
    await expect(crew.kickoff()).rejects.toThrow("model down");
    expect(slowTask.output?.raw).toBe("slow");
    expect(end.llm.calls).toHaveLength(0);
  });
});

describe("sequential process: conditional tasks", () => {
  const setup = (condition: (raw: string) => boolean) => {
    const a = fakeAgent("Researcher", [final("no data found")]);
    const b = fakeAgent("Fixer", [final("fixed")]);
    const c = fakeAgent("Writer", [final("report")]);
    const conditional = new ConditionalTask({ description: "fix", expectedOutput: "x", agent: b.agent, condition: (previous) => condition(previous.raw) });
    const crew = new Crew({ agents: [a.agent, b.agent, c.agent], tasks: [task("research", a.agent), conditional, task("write", c.agent)] });
    return { crew, a, b, c };
  };

  it("skips the task when the condition rejects the previous output", async () => {
    const { crew, b, c } = setup((raw) => raw.includes("plenty"));
    const output = await crew.kickoff();
    expect(b.llm.calls).toHaveLength(0);
    expect(output.tasksOutput.map((o) => o.raw)).toEqual(["no data found", "", "report"]);
    expect(userText(c.llm)).toContain("no data found");
  });

  it("runs the task when the condition accepts it", async () => {
    const { crew, b } = setup((raw) => raw.includes("no data"));
    const output = await crew.kickoff();
    expect(userText(b.llm)).toContain("no data found");
    expect(output.tasksOutput.map((o) => o.raw)).toEqual(["no data found", "fixed", "report"]);
  });

  it("takes the crew output from the last non-empty output when the last task is skipped", async () => {
    const a = fakeAgent("Researcher", [final("kept")]);
    const b = fakeAgent("Fixer", [final("unused")]);
    const skipped = new ConditionalTask({ description: "fix", expectedOutput: "x", agent: b.agent, condition: async () => false });
    const output = await new Crew({ agents: [a.agent, b.agent], tasks: [task("a", a.agent), skipped] }).kickoff();
    expect(output.raw).toBe("kept");
    expect(output.tasksOutput).toHaveLength(2);
  });

  it("decides on the output of async tasks that ran before it", async () => {
    const a = fakeAgent("Researcher", [final("async result")], { latencyMs: 30 });
    const b = fakeAgent("Fixer", [final("fixed")]);
    const seen: string[] = [];
    const conditional = new ConditionalTask({
      description: "fix",
      expectedOutput: "x",
      agent: b.agent,
      condition: (previous) => {
        seen.push(previous.raw);
        return true;
      },
    });
    const sync = fakeAgent("Starter", [final("start")]);
    await new Crew({ agents: [sync.agent, a.agent, b.agent], tasks: [task("s", sync.agent), task("a", a.agent, { asyncExecution: true }), conditional] }).kickoff();
    expect(seen).toEqual(["async result"]);
  });
});

describe("CrewOutput", () => {
  it("carries the last output parsed, the task outputs and the summed token usage", async () => {
    const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };
    const a = fakeAgent("Researcher", [final("alpha"), final("alpha again")], { usage });
    const b = fakeAgent("Analyst", [final('{"score": 3}'), final('{"score": 4}')], { usage });
    const schema = z.object({ score: z.number() });
    const crew = new Crew({ agents: [a.agent, b.agent], tasks: [task("a", a.agent), task("b", b.agent, { outputSchema: schema })] });
    const output = await crew.kickoff();
    expect(output.raw).toBe('{"score": 3}');
    expect(output.parsed).toEqual({ score: 3 });
    expect(output.jsonDict).toEqual({ score: 3 });
    expect(String(output)).toBe(JSON.stringify({ score: 3 }, null, 2));
    expect(output.tokenUsage).toEqual({ promptTokens: 20, completionTokens: 10, totalTokens: 30, successfulRequests: 2 });
    expect(crew.usageMetrics).toEqual(output.tokenUsage);
    const json = output.toJSON();
    expect(json.raw).toBe('{"score": 3}');
    expect((json.tasksOutput as unknown[]).length).toBe(2);
    // Usage is per kickoff, not the agents' lifetime totals.
    const again = await crew.kickoff();
    expect(again.tokenUsage.totalTokens).toBe(30);
  });

  it("prints the raw text when nothing is parsed", async () => {
    const a = fakeAgent("Researcher", [final("plain")]);
    const output = await new Crew({ agents: [a.agent], tasks: [task("a", a.agent)] }).kickoff();
    expect(output.toString()).toBe("plain");
    expect(output.parsed).toBeUndefined();
    expect(output.jsonDict).toBeUndefined();
  });
});
