import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { Agent, AgentConfigError, AgentTimeoutError, ContextWindowExceededError, eventBus, tool, type AgentStep, type CrewtsEvent } from "../../src/index.js";
import { FakeLLM } from "../../src/testing/index.js";

const multiplier = () => {
  const execute = vi.fn(({ first_number, second_number }: { first_number: number; second_number: number }) => first_number * second_number);
  return {
    execute,
    tool: tool({
      name: "multiplier",
      description: "Multiplies two numbers",
      schema: z.object({ first_number: z.number(), second_number: z.number() }),
      execute,
    }),
  };
};

const base = { role: "Mathematician", goal: "Compute exact results", backstory: "You check every number." };
const action = (a: number, b: number) => `Thought: I need the tool\nAction: multiplier\nAction Input: {"first_number": ${a}, "second_number": ${b}}`;
const final = (text: string) => `Thought: I now know the final answer\nFinal Answer: ${text}`;

afterEach(() => eventBus.clear());

describe("Agent text ReAct loop", () => {
  it("uses a tool, feeds back the observation, and returns the final answer", async () => {
    const m = multiplier();
    const llm = new FakeLLM([action(6, 7), final("42")]);
    const agent = new Agent({ ...base, llm, tools: [m.tool] });
    const out = await agent.kickoff("What is 6 times 7?");
    expect(out.raw).toBe("42");
    expect(m.execute).toHaveBeenCalledOnce();
    const [system, user] = llm.calls[0]!.messages;
    expect(system!.role).toBe("system");
    expect(system!.content).toContain("You are Mathematician. You check every number.");
    expect(system!.content).toContain("Your personal goal is: Compute exact results");
    expect(system!.content).toContain("Tool Name: multiplier");
    expect(system!.content).toContain("Action Input:");
    expect(user!.content).toContain("Current Task: What is 6 times 7?");
    expect(llm.calls[0]!.options.stop).toEqual(["\nObservation:"]);
    expect(llm.calls[1]!.messages.at(-1)).toEqual({ role: "assistant", content: `${action(6, 7)}\nObservation: 42` });
    expect(out.usageMetrics.successfulRequests).toBe(2);
    expect(out.usageMetrics.totalTokens).toBeGreaterThan(0);
    expect(agent.usageMetrics.successfulRequests).toBe(2);
  });

  it("feeds CrewAI's parse error back for a broken action and recovers", async () => {
    const m = multiplier();
    const llm = new FakeLLM(["Thought: I need the tool\nAction: multiplier", final("done")]);
    const out = await new Agent({ ...base, llm, tools: [m.tool] }).kickoff("task");
    expect(out.raw).toBe("done");
    expect(llm.calls[1]!.messages.at(-1)!.content).toContain("I did it wrong. Invalid Format: I missed the 'Action Input:' after 'Action:'.");
  });

  it("answers a repeated identical tool call without running the tool again", async () => {
    const m = multiplier();
    const llm = new FakeLLM([action(2, 3), action(2, 3), final("6")]);
    const out = await new Agent({ ...base, llm, tools: [m.tool] }).kickoff("2*3");
    expect(out.raw).toBe("6");
    expect(m.execute).toHaveBeenCalledOnce();
    const second = llm.calls[2]!.messages.at(-1)!.content;
    expect(second).toMatch(/Observation: .*(already|same)/i);
  });

  it("stops at maxIter and forces a final answer", async () => {
    const m = multiplier();
    const llm = new FakeLLM([action(1, 1), action(1, 2), action(1, 3), "Thought: forced\nFinal Answer: best effort"]);
    const out = await new Agent({ ...base, llm, tools: [m.tool], maxIter: 3 }).kickoff("loop");
    expect(out.raw).toBe("best effort");
    expect(llm.calls).toHaveLength(4);
    expect(llm.calls[3]!.messages.at(-1)!.content).toMatch(/Stop using tools now/);
  });

  it("returns a resultAsAnswer tool's output as the final answer", async () => {
    const lookup = tool({
      name: "lookup",
      description: "Looks a value up",
      schema: z.object({ key: z.string() }),
      execute: ({ key }) => `value of ${key}`,
      resultAsAnswer: true,
    });
    const llm = new FakeLLM([`Thought: look\nAction: lookup\nAction Input: {"key": "a"}`]);
    const out = await new Agent({ ...base, llm, tools: [lookup] }).kickoff("find a");
    expect(out.raw).toBe("value of a");
    expect(llm.calls).toHaveLength(1);
  });

  it("turns bad tool arguments into an observation instead of a crash", async () => {
    const m = multiplier();
    const llm = new FakeLLM([`Thought: x\nAction: multiplier\nAction Input: {"first_number": "six"}`, final("gave up")]);
    const out = await new Agent({ ...base, llm, tools: [m.tool] }).kickoff("x");
    expect(out.raw).toBe("gave up");
    expect(m.execute).not.toHaveBeenCalled();
    expect(llm.calls[1]!.messages.at(-1)!.content).toMatch(/Observation: [\s\S]*first_number/);
  });

  it("calls stepCallback for each action and the finish", async () => {
    const steps: AgentStep[] = [];
    const llm = new FakeLLM([action(2, 2), final("4")]);
    await new Agent({ ...base, llm, tools: [multiplier().tool], stepCallback: (s) => void steps.push(s) }).kickoff("2*2");
    expect(steps.map((s) => s.type)).toEqual(["action", "finish"]);
    expect(steps[0]).toMatchObject({ tool: "multiplier", result: "4" });
    expect(steps[1]).toMatchObject({ output: "4" });
  });
});

describe("Agent native tool calls", () => {
  it("sends tool schemas, runs the called tool and returns the text answer", async () => {
    const m = multiplier();
    const llm = new FakeLLM([{ toolCalls: [{ name: "multiplier", arguments: { first_number: 2, second_number: 3 } }] }, "The answer is 6"], { functionCalling: true });
    const out = await new Agent({ ...base, llm, tools: [m.tool] }).kickoff("2*3");
    expect(out.raw).toBe("The answer is 6");
    expect(m.execute).toHaveBeenCalledWith({ first_number: 2, second_number: 3 });
    expect(llm.calls[0]!.options.tools?.[0]).toMatchObject({ name: "multiplier", parameters: { type: "object" } });
    expect(llm.calls[0]!.options.stop).toBeUndefined();
    const history = llm.calls[1]!.messages;
    expect(history.at(-2)).toMatchObject({ role: "assistant", toolCalls: [{ name: "multiplier" }] });
    expect(history.at(-1)).toMatchObject({ role: "tool", content: "6", toolName: "multiplier" });
  });

  it("falls back to the text protocol when nativeToolCalling is false", async () => {
    const llm = new FakeLLM([final("ok")], { functionCalling: true });
    await new Agent({ ...base, llm, tools: [multiplier().tool], nativeToolCalling: false }).kickoff("x");
    expect(llm.calls[0]!.options.tools).toBeUndefined();
    expect(llm.calls[0]!.messages[0]!.content).toContain("Tool Name: multiplier");
  });
});

describe("Agent limits and errors", () => {
  it("stops a task that runs past maxExecutionTime", async () => {
    const llm = new FakeLLM([final("late")], { latencyMs: 5_000 });
    const agent = new Agent({ ...base, llm, maxExecutionTime: 0.05 });
    const started = Date.now();
    await expect(agent.kickoff("slow")).rejects.toBeInstanceOf(AgentTimeoutError);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("retries a failed execution up to maxRetryLimit", async () => {
    const llm = new FakeLLM([new Error("flaky"), new Error("flaky"), final("third time")]);
    const out = await new Agent({ ...base, llm, maxRetryLimit: 2 }).kickoff("x");
    expect(out.raw).toBe("third time");
    const failing = new FakeLLM([new Error("a"), new Error("b")]);
    await expect(new Agent({ ...base, llm: failing, maxRetryLimit: 1 }).kickoff("x")).rejects.toThrow("b");
  });

  it("summarizes the history when it outgrows the context window", async () => {
    const big = tool({ name: "big", description: "Returns a lot of text", schema: z.object({ n: z.number() }), execute: ({ n }) => "x".repeat(2_000) + n });
    let agentCalls = 0;
    const llm = new FakeLLM(
      (messages) => {
        if (messages[0]!.content.startsWith("You summarize")) return "SUMMARY: the tool returned long text";
        agentCalls++;
        if (agentCalls <= 2) return `Thought: more\nAction: big\nAction Input: {"n": ${agentCalls}}`;
        return final(messages.some((m) => m.content.includes("SUMMARY:")) ? "summarized" : "not summarized");
      },
      { contextWindow: 1_000 },
    );
    const out = await new Agent({ ...base, llm, tools: [big] }).kickoff("collect");
    expect(out.raw).toBe("summarized");
    const summarizerCalls = llm.calls.filter((c) => c.messages[0]!.content.startsWith("You summarize"));
    expect(summarizerCalls.length).toBeGreaterThan(0);
    // The system prompt and the task survive summarizing; the long tool output does not.
    const last = llm.calls.at(-1)!.messages;
    expect(last[0]!.content).toContain("You are Mathematician");
    expect(last[1]!.content).toContain("Current Task: collect");
    expect(last.some((m) => m.content.includes("x".repeat(2_000)))).toBe(false);
  });

  it("fails clearly when the history outgrows the window and respectContextWindow is false", async () => {
    const big = tool({ name: "big", description: "Returns a lot of text", schema: z.object({}), execute: () => "x".repeat(8_000) });
    const llm = new FakeLLM([`Thought: t\nAction: big\nAction Input: {}`, final("never")], { contextWindow: 1_000 });
    await expect(new Agent({ ...base, llm, tools: [big], respectContextWindow: false }).kickoff("x")).rejects.toThrow(ContextWindowExceededError);
    await expect(new Agent({ ...base, llm: new FakeLLM([], { contextWindow: 1_000 }), tools: [big], respectContextWindow: false }).kickoff("y".repeat(10_000))).rejects.toThrow(/respectContextWindow: true/);
  });

  it("rejects invalid and unknown options at construction with the field named", () => {
    expect(() => new Agent({ ...base, role: "" })).toThrow(AgentConfigError);
    expect(() => new Agent({ ...base, maxIter: 0 })).toThrow(/maxIter/);
    expect(() => new Agent({ ...base, maxIterations: 3 } as never)).toThrow(/maxIterations/);
    expect(() => new Agent({ ...base, llm: 42 } as never)).toThrow(/llm/);
  });
});

describe("Agent prompts", () => {
  it("injects the date, applies templates and can fold the system prompt into the user message", async () => {
    const llm = new FakeLLM([final("a"), final("b")]);
    await new Agent({ ...base, llm, injectDate: true, dateFormat: "%Y" }).kickoff("dated");
    expect(llm.calls[0]!.messages[1]!.content).toContain(`Current Date: ${new Date().getFullYear()}`);
    await new Agent({
      ...base,
      llm,
      useSystemPrompt: false,
      systemTemplate: "<sys>{{ .System }}</sys>",
      promptTemplate: "<user>{{ .Prompt }}</user>",
      responseTemplate: "<assistant>{{ .Response }}</assistant>",
    }).kickoff("templated");
    const msgs = llm.calls[1]!.messages;
    expect(msgs).toHaveLength(1);
    expect(msgs[0]!.role).toBe("user");
    expect(msgs[0]!.content).toMatch(/^<sys>You are Mathematician[\s\S]*<\/sys>\n\n<user>[\s\S]*templated[\s\S]*<\/user><assistant>$/);
    // No tools: no ReAct protocol, so no Observation stop word.
    expect(llm.calls[1]!.options.stop).toEqual(["</assistant>"]);
  });

  it("executeTask includes the expected output and the context", async () => {
    const llm = new FakeLLM([final("report")]);
    const agent = new Agent({ ...base, llm });
    const out = await agent.executeTask({ description: "Write the report", expectedOutput: "A one-line report" }, "Earlier finding: 42");
    expect(out).toBe("report");
    const prompt = llm.calls[0]!.messages[1]!.content;
    expect(prompt).toContain("Write the report");
    expect(prompt).toContain("expected criteria for your final answer: A one-line report");
    expect(prompt).toContain("This is the context you're working with:\nEarlier finding: 42");
  });

  it("reasoning adds a plan to the task before acting", async () => {
    const llm = new FakeLLM(["1. add the numbers\nREADY: I am ready to execute the task.", final("3")]);
    await new Agent({ ...base, llm, reasoning: true }).kickoff("1+2");
    expect(llm.calls[1]!.messages[1]!.content).toContain("Reasoning Plan:\n1. add the numbers");
  });
});

describe("agent.kickoff with outputSchema", () => {
  const schema = z.object({ answer: z.number(), unit: z.string() });

  it("parses JSON from the final answer, fenced or not", async () => {
    const llm = new FakeLLM([final('Here you go:\n```json\n{"answer": 42, "unit": "m"}\n```')]);
    const out = await new Agent({ ...base, llm }).kickoff("measure", { outputSchema: schema });
    expect(out.parsed).toEqual({ answer: 42, unit: "m" });
    expect(out.jsonDict).toEqual({ answer: 42, unit: "m" });
    expect(llm.calls[0]!.messages[1]!.content).toContain('"answer"');
  });

  it("asks the LLM to convert when the answer is not JSON, and fails clearly when nothing converts", async () => {
    const llm = new FakeLLM([final("forty-two metres"), '{"answer": 42, "unit": "m"}']);
    const out = await new Agent({ ...base, llm }).kickoff("measure", { outputSchema: schema });
    expect(out.parsed).toEqual({ answer: 42, unit: "m" });
    expect(out.usageMetrics.successfulRequests).toBe(2);
    const bad = new FakeLLM([final("nope"), "still nope", "no", "never"]);
    await expect(new Agent({ ...base, llm: bad }).kickoff("measure", { outputSchema: schema })).rejects.toThrow(/could not be converted to the expected schema after 3/);
  });
});

describe("Agent events", () => {
  it("emits agent, llm and tool events with the agent's ids", async () => {
    const seen: CrewtsEvent[] = [];
    eventBus.onAny((e) => void seen.push(e));
    const agent = new Agent({ ...base, llm: new FakeLLM([action(3, 3), final("9")]), tools: [multiplier().tool] });
    await agent.kickoff("3*3");
    const types = seen.map((e) => e.type);
    expect(types).toEqual([
      "agent_execution_started",
      "llm_call_started",
      "llm_call_completed",
      "tool_usage_started",
      "tool_usage_finished",
      "agent_logs_execution",
      "llm_call_started",
      "llm_call_completed",
      "agent_logs_execution",
      "agent_execution_completed",
    ]);
    expect(seen.every((e) => (e as { agentId?: string }).agentId === agent.id)).toBe(true);
  });

  it("emits agent_execution_error when the run fails", async () => {
    const errors: string[] = [];
    eventBus.on("agent_execution_error", (e) => void errors.push(e.error));
    await expect(new Agent({ ...base, llm: new FakeLLM([]), maxRetryLimit: 0 }).kickoff("x")).rejects.toThrow(/no scripted response left/);
    expect(errors).toHaveLength(1);
  });
});

describe("API.md FakeLLM example", () => {
  it("runs a scripted native tool call then a plain answer, with default FakeLLM options", async () => {
    const m = multiplier();
    const llm = new FakeLLM([{ toolCalls: [{ name: "multiplier", arguments: { first_number: 2, second_number: 3 } }] }, "6"]);
    const out = await new Agent({ ...base, llm, tools: [m.tool] }).kickoff("2*3");
    expect(out.raw).toBe("6");
    expect(m.execute).toHaveBeenCalledOnce();
    expect(llm.calls[1]!.messages.at(-1)).toMatchObject({ role: "tool", content: "6" });
  });
});
