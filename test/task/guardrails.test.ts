import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { eventBus, type CrewtsEvent } from "../../src/events/index.js";
import type { TaskOutput} from "../../src/task/index.js";
import { GuardrailError, Task, llmGuardrail, type GuardrailResult } from "../../src/task/index.js";
import { FakeLLM } from "../../src/testing/index.js";
import { fakeAgent, final, userText } from "./helpers.js";

afterEach(() => eventBus.clear());

describe("function guardrails", () => {
  it("accepts a passing tuple and an object result", async () => {
    const { agent } = fakeAgent([final("long enough answer"), final("another answer")]);
    const tuple = await new Task({ description: "d", expectedOutput: "x", agent, guardrail: (o) => [o.raw.length > 5, o.raw] }).executeSync();
    expect(tuple.raw).toBe("long enough answer");
    const object = await new Task({ description: "d", expectedOutput: "x", agent, guardrail: () => ({ success: true }) }).executeSync();
    expect(object.raw).toBe("another answer");
  });

  it("retries with the error and the failed output in the context, then passes", async () => {
    const { agent, llm } = fakeAgent([final("short"), final("a much longer answer")]);
    const guardrail = vi.fn((o: TaskOutput): GuardrailResult => (o.raw.length < 10 ? { success: false, error: "Too short: need 10 characters" } : [true, o.raw]));
    const task = new Task({ description: "Write", expectedOutput: "x", agent, guardrail });
    const output = await task.executeSync({ context: "Original context" });
    expect(output.raw).toBe("a much longer answer");
    expect(guardrail).toHaveBeenCalledTimes(2);
    expect(task.retryCount).toBe(1);
    const retry = userText(llm, 1);
    expect(retry).toContain("Too short: need 10 characters");
    expect(retry).toContain("short");
    expect(retry).toContain("Original context");
  });

  it("throws GuardrailError with CrewAI's sentence, the task, the guardrail and the last error after guardrailMaxRetries", async () => {
    const { agent, llm } = fakeAgent([final("bad"), final("bad"), final("bad")]);
    const failed = vi.fn();
    eventBus.on("task_failed", failed);
    const task = new Task({ description: "Write", expectedOutput: "x", agent, name: "writer", guardrailMaxRetries: 2, guardrail: function mustSayGood(o) { return [o.raw.includes("good"), "Say good"]; } });
    const error = await task.executeSync().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GuardrailError);
    expect((error as Error).message).toMatch(/^Task failed guardrail validation after 2 retries\. Last error: Say good\. Task: 'writer'; guardrail: function mustSayGood/);
    expect((error as GuardrailError).lastError).toBe("Say good");
    expect(llm.calls).toHaveLength(3);
    expect(task.retryCount).toBe(2);
    expect(failed).toHaveBeenCalledOnce();
  });

  it("with guardrailMaxRetries 0 fails at once", async () => {
    const { agent, llm } = fakeAgent([final("bad")]);
    const task = new Task({ description: "Write", expectedOutput: "x", agent, guardrailMaxRetries: 0, guardrail: () => [false, "nope"] });
    await expect(task.executeSync()).rejects.toThrow(/after 0 retries\. Last error: nope/);
    expect(llm.calls).toHaveLength(1);
  });

  it("rejects a guardrail that returns the wrong shape", async () => {
    const { agent } = fakeAgent([final("x")]);
    const task = new Task({ description: "d", expectedOutput: "x", agent, guardrail: (() => "yes") as never });
    await expect(task.executeSync()).rejects.toThrow(/not a guardrail result\. Return \[true, result\]/);
  });

  it("re-exports a transformed string result to raw, parsed and the output file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "crewts-guard-"));
    try {
      const { agent } = fakeAgent([final('{"title": "draft"}')]);
      const callback = vi.fn();
      const path = join(dir, "out.json");
      const task = new Task({
        description: "d",
        expectedOutput: "x",
        agent,
        outputSchema: z.object({ title: z.string() }),
        outputFile: path,
        callback,
        guardrail: (o) => [true, JSON.stringify({ title: `${o.parsed?.title ?? ""} (checked)` })],
      });
      const output = await task.executeSync();
      expect(output.parsed).toEqual({ title: "draft (checked)" });
      expect(output.raw).toBe('{"title":"draft (checked)"}');
      expect(callback).toHaveBeenCalledWith(output);
      expect(JSON.parse(await readFile(path, "utf8"))).toEqual({ title: "draft (checked)" });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("replaces parsed with a schema-valid object result, and raw with a string result", async () => {
    const { agent } = fakeAgent([final('{"n": 1}'), final("hello")]);
    const typed = await new Task({ description: "d", expectedOutput: "x", agent, outputSchema: z.object({ n: z.number() }), guardrail: (o) => [true, { n: (o.parsed?.n ?? 0) + 1 }] }).executeSync();
    expect(typed.parsed).toEqual({ n: 2 });
    const plain = await new Task({ description: "d", expectedOutput: "x", agent, guardrail: (o) => [true, o.raw.toUpperCase()] }).executeSync();
    expect(plain.raw).toBe("HELLO");
  });

  it("runs several guardrails in order, each with its own retry count; guardrails win over guardrail", async () => {
    const { agent, llm } = fakeAgent([final("abc"), final("abc!"), final("ABC!")]);
    const ignored = vi.fn(() => [false, "never"] as GuardrailResult);
    const task = new Task({
      description: "d",
      expectedOutput: "x",
      agent,
      guardrailMaxRetries: 1,
      guardrail: ignored,
      guardrails: [
        (o) => (o.raw.endsWith("!") ? [true, o.raw] : [false, "End with !"]),
        (o) => (o.raw === o.raw.toUpperCase() ? { success: true, result: o.raw } : { success: false, error: "Use capitals" }),
      ],
    });
    const output = await task.executeSync();
    expect(output.raw).toBe("ABC!");
    expect(ignored).not.toHaveBeenCalled();
    expect(task.guardrailRetryCounts).toEqual([1, 1]);
    expect(task.retryCount).toBe(2);
    expect(userText(llm, 1)).toContain("End with !");
    expect(userText(llm, 2)).toContain("Use capitals");
  });

  it("numbers the failing guardrail from 0 in the error when there are several, as CrewAI", async () => {
    const { agent } = fakeAgent([final("abc!"), final("abc!")]);
    const task = new Task({
      description: "d",
      expectedOutput: "x",
      agent,
      guardrailMaxRetries: 1,
      guardrails: [(o) => [true, o.raw], (o) => (o.raw === o.raw.toUpperCase() ? [true, o.raw] : [false, "Use capitals"])],
    });
    await expect(task.executeSync()).rejects.toThrow(/^Task failed guardrail 1 validation after 1 retries\. Last error: Use capitals\./);
  });

  it("emits llm_guardrail_started/completed for every check with retry counts", async () => {
    const { agent } = fakeAgent([final("one"), final("two")]);
    const events: CrewtsEvent[] = [];
    eventBus.on("llm_guardrail_started", (e) => void events.push(e));
    eventBus.on("llm_guardrail_completed", (e) => void events.push(e));
    const task = new Task({ description: "d", expectedOutput: "x", agent, guardrail: (o) => (o.raw === "two" ? [true, o.raw] : [false, "want two"]) });
    await task.executeSync();
    expect(events.map((e) => [e.type, (e as CrewtsEvent<"llm_guardrail_started">).retryCount])).toEqual([
      ["llm_guardrail_started", 0],
      ["llm_guardrail_completed", 0],
      ["llm_guardrail_started", 1],
      ["llm_guardrail_completed", 1],
    ]);
    expect(events[1]).toMatchObject({ success: false, error: "want two", taskId: task.id, agentRole: "Researcher" });
    expect(events[3]).toMatchObject({ success: true, result: "two" });
    expect((events[0] as CrewtsEvent<"llm_guardrail_started">).guardrail).toContain("want two");
  });
});

describe("LLM (string) guardrails", () => {
  it("passes when the agent's LLM says the output is valid, counting its tokens for the agent", async () => {
    const { agent, llm } = fakeAgent([final("A balanced review with pros and cons."), '{"valid": true, "feedback": ""}'], {
      usage: { promptTokens: 3, completionTokens: 1, totalTokens: 4 },
    });
    const started = vi.fn();
    eventBus.on("llm_guardrail_started", started);
    const task = new Task({ description: "Review", expectedOutput: "x", agent, guardrail: "Mention both pros and cons" });
    const output = await task.executeSync();
    expect(output.raw).toBe("A balanced review with pros and cons.");
    const judge = userText(llm, 1);
    expect(judge).toContain("Mention both pros and cons");
    expect(judge).toContain("A balanced review with pros and cons.");
    expect(started).toHaveBeenCalledWith(expect.objectContaining({ guardrail: "Mention both pros and cons", retryCount: 0 }));
    expect(agent.usageMetrics.successfulRequests).toBe(2);
    expect(agent.usageMetrics.totalTokens).toBe(8);
  });

  it("feeds the LLM's feedback back on failure and retries", async () => {
    const { agent, llm } = fakeAgent([
      final("Great product!"),
      '```json\n{"valid": false, "feedback": "Only pros are mentioned"}\n```',
      final("Pros: fast. Cons: pricey."),
      '{"valid": true}',
    ]);
    const task = new Task({ description: "Review", expectedOutput: "x", agent, guardrail: "Mention both pros and cons" });
    const output = await task.executeSync();
    expect(output.raw).toBe("Pros: fast. Cons: pricey.");
    expect(userText(llm, 2)).toContain("Only pros are mentioned");
    expect(task.retryCount).toBe(1);
  });

  it("fails with GuardrailError when the LLM keeps rejecting", async () => {
    const { agent } = fakeAgent([final("bad"), '{"valid": false, "feedback": "Nope"}', final("bad"), '{"valid": false, "feedback": "Still no"}']);
    const task = new Task({ description: "Review", expectedOutput: "x", agent, guardrail: "Be good", guardrailMaxRetries: 1 });
    await expect(task.executeSync()).rejects.toThrow(/^Task failed guardrail validation after 1 retries\. Last error: Still no\. Task: 'Review'; guardrail: Be good\./);
  });

  it("counts a judge whose call fails as a failed check and retries the task with that error, as CrewAI", async () => {
    const { agent, llm } = fakeAgent([final("first"), new Error("judge is down"), final("second"), '{"valid": true}']);
    const task = new Task({ description: "Review", expectedOutput: "x", agent, guardrail: "Be good" });
    const output = await task.executeSync();
    expect(output.raw).toBe("second");
    expect(userText(llm, 2)).toContain("Error while validating the task output: ");
    expect(userText(llm, 2)).toContain("judge is down");
    expect(task.retryCount).toBe(1);
  });

  it("fails with GuardrailError naming the validation error once the judge keeps failing", async () => {
    const { agent } = fakeAgent([final("first"), new Error("Unexpected error")]);
    const task = new Task({ description: "Review", expectedOutput: "x", agent, guardrail: "Be good", guardrailMaxRetries: 0 });
    const failure = task.executeSync();
    await expect(failure).rejects.toThrow(GuardrailError);
    await expect(failure).rejects.toThrow(/Error while validating the task output: .*Unexpected error/);
  });

  it("can use its own judge LLM via llmGuardrail", async () => {
    const { agent, llm } = fakeAgent([final("answer")]);
    const judge = new FakeLLM(['{"valid": true, "feedback": null}']);
    const output = await new Task({ description: "d", expectedOutput: "x", agent, guardrails: [llmGuardrail({ description: "Be concise", llm: judge })] }).executeSync();
    expect(output.raw).toBe("answer");
    expect(llm.calls).toHaveLength(1);
    expect(judge.calls).toHaveLength(1);
  });
});
