import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { Agent, AgentConfigError, AgentOutput, Crew, eventBus, GuardrailError, Task, type AgentGuardrailContext, type CrewtsEvent, type GuardrailResult } from "../../src/index.js";
import { FakeLLM } from "../../src/testing/index.js";

const final = (text: string): string => `Thought: I now know the final answer\nFinal Answer: ${text}`;
const base = { role: "Writer", goal: "Write short answers", backstory: "You are precise." };
const userText = (llm: FakeLLM, call: number): string =>
  (llm.calls[call]?.messages ?? [])
    .filter((m) => m.role === "user")
    .map((m) => m.content)
    .join("\n");
const longEnough = (o: AgentOutput): GuardrailResult => (o.raw.length >= 10 ? [true, o.raw] : [false, `Too short: ${o.raw.length} characters, need 10`]);

afterEach(() => eventBus.clear());

describe("agent guardrail on kickoff", () => {
  it("accepts a passing answer without asking the model again", async () => {
    const llm = new FakeLLM([final("a long enough answer")]);
    const guardrail = vi.fn(longEnough);
    const out = await new Agent({ ...base, llm, guardrail }).kickoff("Write");
    expect(out.raw).toBe("a long enough answer");
    expect(llm.calls).toHaveLength(1);
    expect(guardrail).toHaveBeenCalledTimes(1);
    // The guardrail gets the kickoff's AgentOutput and a context naming the agent and its retries.
    const [given, context] = guardrail.mock.calls[0] as unknown as [AgentOutput, AgentGuardrailContext];
    expect(given).toBeInstanceOf(AgentOutput);
    expect(given.agentRole).toBe("Writer");
    expect(given.messages.length).toBeGreaterThan(0);
    expect(context.retryCount).toBe(0);
    expect(context.agent.role).toBe("Writer");
  });

  it("asks again with the guardrail's error and the previous answer, then returns the passing answer", async () => {
    const llm = new FakeLLM([
      { text: final("short"), usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 } },
      { text: final("a much longer answer"), usage: { promptTokens: 20, completionTokens: 7, totalTokens: 27 } },
    ]);
    const agent = new Agent({ ...base, llm, guardrail: longEnough });
    const out = await agent.kickoff("Write about tea");
    expect(out.raw).toBe("a much longer answer");
    expect(llm.calls).toHaveLength(2);
    const retry = userText(llm, 1);
    expect(retry).toContain("Write about tea");
    expect(retry).toContain("Too short: 5 characters, need 10");
    expect(retry).toContain("short");
    // The result's usage counts both runs.
    expect(out.usageMetrics).toMatchObject({ promptTokens: 30, completionTokens: 12, totalTokens: 42, successfulRequests: 2 });
    expect(agent.usageMetrics.totalTokens).toBe(42);
  });

  it("fails with GuardrailError naming the agent, the guardrail and the last error after guardrailMaxRetries", async () => {
    const llm = new FakeLLM([final("no"), final("nope"), final("still no")]);
    const agent = new Agent({ ...base, llm, guardrail: function mustBeLong(o: AgentOutput): GuardrailResult { return longEnough(o); }, guardrailMaxRetries: 2 });
    const failure = agent.kickoff("Write");
    await expect(failure).rejects.toThrow(GuardrailError);
    await expect(failure).rejects.toThrow(/^Agent's guardrail failed validation after 2 retries\. Last error: Too short: 8 characters, need 10\. Agent: 'Writer'; guardrail: function mustBeLong/);
    const error = (await failure.catch((e: unknown) => e)) as GuardrailError;
    expect(error.lastError).toBe("Too short: 8 characters, need 10");
    expect(error.retries).toBe(2);
    expect(llm.calls).toHaveLength(3);
  });

  it("defaults to 3 retries", async () => {
    const llm = new FakeLLM(Array.from({ length: 5 }, () => final("x")));
    const failure = new Agent({ ...base, llm, guardrail: () => [false, "bad"] }).kickoff("Write");
    await expect(failure).rejects.toThrow(/after 3 retries\. Last error: bad\./);
    expect(llm.calls).toHaveLength(4);
  });

  it("judges a string guardrail with the agent's LLM and feeds its feedback back", async () => {
    const llm = new FakeLLM([
      final("I think maybe tea"),
      '{"valid": false, "feedback": "It hedges instead of answering."}',
      final("Tea."),
      '{"valid": true, "feedback": null}',
    ]);
    const agent = new Agent({ ...base, llm, guardrail: "The answer must not hedge" });
    const out = await agent.kickoff("Tea or coffee?");
    expect(out.raw).toBe("Tea.");
    expect(llm.calls).toHaveLength(4);
    expect(userText(llm, 1)).toContain("The answer must not hedge");
    expect(userText(llm, 1)).toContain("I think maybe tea");
    expect(userText(llm, 2)).toContain("It hedges instead of answering.");
    // The judge's calls count in the kickoff's usage too.
    expect(out.usageMetrics.successfulRequests).toBe(4);
  });

  it("counts a failing judge as a failed check and asks again, as a task's LLM guardrail does", async () => {
    const llm = new FakeLLM([final("first"), new Error("judge is down"), final("second"), '{"valid": true}']);
    const out = await new Agent({ ...base, llm, guardrail: "Be good" }).kickoff("Write");
    expect(out.raw).toBe("second");
    expect(userText(llm, 2)).toContain("Error while validating the task output: ");
    expect(userText(llm, 2)).toContain("judge is down");
  });

  it("lets a function guardrail that throws fail the kickoff, as a task's does, and reports the check as failed", async () => {
    const completed: CrewtsEvent<"llm_guardrail_completed">[] = [];
    eventBus.on("llm_guardrail_completed", (e) => void completed.push(e));
    const llm = new FakeLLM([final("answer")]);
    const failure = new Agent({
      ...base,
      llm,
      guardrail: () => {
        throw new Error("checker crashed");
      },
    }).kickoff("Write");
    await expect(failure).rejects.toThrow("checker crashed");
    expect(completed).toHaveLength(1);
    expect(completed[0]).toMatchObject({ success: false, error: "checker crashed", agentRole: "Writer" });
    expect(llm.calls).toHaveLength(1);
  });

  it("emits llm_guardrail_started/completed with retry counts", async () => {
    const events: CrewtsEvent[] = [];
    eventBus.on("llm_guardrail_started", (e) => void events.push(e));
    eventBus.on("llm_guardrail_completed", (e) => void events.push(e));
    const llm = new FakeLLM([final("short"), final("long enough now")]);
    await new Agent({ ...base, llm, guardrail: longEnough }).kickoff("Write");
    expect(events.map((e) => [e.type, (e as CrewtsEvent<"llm_guardrail_started">).retryCount])).toEqual([
      ["llm_guardrail_started", 0],
      ["llm_guardrail_completed", 0],
      ["llm_guardrail_started", 1],
      ["llm_guardrail_completed", 1],
    ]);
    expect(events[1]).toMatchObject({ success: false, error: "Too short: 5 characters, need 10", agentRole: "Writer" });
    expect(events[3]).toMatchObject({ success: true, result: "long enough now" });
  });

  it("uses what a passing guardrail returns: a string replaces the answer and is parsed into the outputSchema", async () => {
    const schema = z.object({ drink: z.string() });
    const llm = new FakeLLM([final('{"drink": "tea"}')]);
    const out = await new Agent({ ...base, llm, guardrail: (o: AgentOutput) => [true, o.raw.replace("tea", "coffee")] }).kickoff("Pick", { outputSchema: schema });
    expect(out.raw).toBe('{"drink": "coffee"}');
    expect(out.parsed).toEqual({ drink: "coffee" });
  });

  it("does not apply to a task the agent does in a crew (only the task's guardrails do)", async () => {
    const llm = new FakeLLM([final("short")]);
    const guardrail = vi.fn(longEnough);
    const agent = new Agent({ ...base, llm, guardrail });
    const result = await new Crew({ agents: [agent], tasks: [new Task({ description: "Write", expectedOutput: "text", agent })] }).kickoff();
    expect(result.raw).toBe("short");
    expect(guardrail).not.toHaveBeenCalled();
  });

  it("rejects a guardrail that is neither a function nor a rule, and a negative guardrailMaxRetries", () => {
    const llm = new FakeLLM([]);
    expect(() => new Agent({ ...base, llm, guardrail: 42 as never })).toThrow(AgentConfigError);
    expect(() => new Agent({ ...base, llm, guardrail: "  " })).toThrow(/a string guardrail must describe the rule/);
    expect(() => new Agent({ ...base, llm, guardrail: longEnough, guardrailMaxRetries: -1 })).toThrow(/guardrailMaxRetries must be 0 or more/);
  });

  it("no longer warns that the option is inactive", () => {
    const warning = vi.spyOn(process, "emitWarning");
    new Agent({ ...base, llm: new FakeLLM([]), guardrail: longEnough });
    expect(warning.mock.calls.filter((c) => String(c[0]).includes("guardrail"))).toEqual([]);
    warning.mockRestore();
  });
});
