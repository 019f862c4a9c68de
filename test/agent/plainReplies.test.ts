import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { Agent, Task, tool } from "../../src/index.js";
import { plainAnswer, readReply } from "../../src/agent/parser.js";
import { FakeLLM } from "../../src/testing/index.js";

const base = { role: "Analyst", goal: "Answer well", backstory: "You are careful." };
const scoreSchema = z.object({ score: z.number() });

function searchTool() {
  const execute = vi.fn(({ query }: { query: string }) => `results for ${query}`);
  return { execute, tool: tool({ name: "search", description: "Searches the web", schema: z.object({ query: z.string() }), execute }) };
}

describe("plain replies are final answers (current CrewAI)", () => {
  it("takes a plain-text reply of an agent without tools as its answer, in one call", async () => {
    const llm = new FakeLLM(["Paris is the capital of France."]);
    const out = await new Agent({ ...base, llm }).kickoff("What is the capital of France?");
    expect(out.raw).toBe("Paris is the capital of France.");
    expect(llm.callCount).toBe(1);
  });

  it("takes a plain-text reply of an agent with tools as its answer, in one call", async () => {
    const search = searchTool();
    const llm = new FakeLLM(["Paris is the capital of France."]);
    const out = await new Agent({ ...base, llm, tools: [search.tool] }).kickoff("What is the capital of France?");
    expect(out.raw).toBe("Paris is the capital of France.");
    expect(search.execute).not.toHaveBeenCalled();
    expect(llm.callCount).toBe(1);
  });

  it("strips a leading Thought: line from a plain reply", async () => {
    const llm = new FakeLLM(["Thought: I know this one.\nParis, on the Seine."]);
    const out = await new Agent({ ...base, llm }).kickoff("Capital of France?");
    expect(out.raw).toBe("Paris, on the Seine.");
    expect(llm.callCount).toBe(1);
  });

  it.each([
    ["bare JSON", '{"score": 4}'],
    ["fenced JSON", '```json\n{"score": 4}\n```'],
    ["Thought: then JSON", 'Thought: I will score it.\n{"score": 4}'],
    ["Final Answer: then JSON", 'Thought: done\nFinal Answer: {"score": 4}'],
  ])("accepts %s for a task with an output schema, in one call", async (_shape, reply) => {
    const llm = new FakeLLM([reply]);
    const agent = new Agent({ ...base, llm, tools: [searchTool().tool] });
    const task = new Task({ description: "Score the essay", expectedOutput: "A score", agent, outputSchema: scoreSchema });
    const output = await task.executeSync();
    expect(output.parsed).toEqual({ score: 4 });
    expect(llm.callCount).toBe(1);
  });

  it("still corrects a broken action (Action: without Action Input:)", async () => {
    const search = searchTool();
    const llm = new FakeLLM(["Thought: I should look it up\nAction: search", "Thought: done\nFinal Answer: Paris"]);
    const out = await new Agent({ ...base, llm, tools: [search.tool] }).kickoff("Capital of France?");
    expect(out.raw).toBe("Paris");
    expect(llm.calls[1]!.messages.at(-1)!.content).toContain("I missed the 'Action Input:' after 'Action:'");
  });

  it("tells the model when an action's input is not valid JSON arguments, then goes on", async () => {
    const search = searchTool();
    const llm = new FakeLLM(["Thought: look it up\nAction: search\nAction Input: capital of France", "Thought: ok\nFinal Answer: Paris"]);
    const out = await new Agent({ ...base, llm, tools: [search.tool] }).kickoff("Capital of France?");
    expect(out.raw).toBe("Paris");
    expect(search.execute).not.toHaveBeenCalled();
    expect(llm.calls[1]!.messages.at(-1)!.content).toMatch(/Observation: .*(JSON|argument)/is);
  });

  it("tells the model about an unknown tool instead of taking the reply as an answer", async () => {
    const search = searchTool();
    const llm = new FakeLLM(['Thought: x\nAction: browse\nAction Input: {"url": "a"}', "Thought: ok\nFinal Answer: done"]);
    const out = await new Agent({ ...base, llm, tools: [search.tool] }).kickoff("Do it");
    expect(out.raw).toBe("done");
    expect(llm.calls[1]!.messages.at(-1)!.content).toContain("browse");
  });

  it("lets Final Answer win over an action in the same reply", async () => {
    const search = searchTool();
    const llm = new FakeLLM(['Thought: x\nAction: search\nAction Input: {"query": "q"}\nThought: I know\nFinal Answer: 42']);
    const out = await new Agent({ ...base, llm, tools: [search.tool] }).kickoff("Answer");
    expect(out.raw).toBe("42");
    expect(search.execute).not.toHaveBeenCalled();
  });

  it("runs the tool and drops an Observation the model invented", async () => {
    const search = searchTool();
    const llm = new FakeLLM(['Thought: look\nAction: search\nAction Input: {"query": "capital"}\nObservation: made-up result', "Thought: ok\nFinal Answer: Paris"]);
    const out = await new Agent({ ...base, llm, tools: [search.tool] }).kickoff("Capital?");
    expect(out.raw).toBe("Paris");
    expect(search.execute).toHaveBeenCalledWith({ query: "capital" });
    const history = llm.calls[1]!.messages.map((m) => m.content).join("\n");
    expect(history).toContain("Observation: results for capital");
    expect(history).not.toContain("made-up result");
  });
});

describe("prompts ask for one format", () => {
  it("does not ask an agent without tools for the ReAct format", async () => {
    const llm = new FakeLLM(["An answer."]);
    await new Agent({ ...base, llm }).kickoff("Say something");
    const text = llm.calls[0]!.messages.map((m) => m.content).join("\n");
    expect(text).not.toMatch(/Final Answer:|Thought:|Action:/);
    expect(llm.calls[0]!.options.stop ?? []).toEqual([]);
  });

  it("asks for the JSON as the final answer, consistent with the Final Answer: format", async () => {
    const llm = new FakeLLM(['Thought: done\nFinal Answer: {"score": 1}']);
    const agent = new Agent({ ...base, llm, tools: [searchTool().tool] });
    await new Task({ description: "Score it", expectedOutput: "A score", agent, outputSchema: scoreSchema }).executeSync();
    const text = llm.calls[0]!.messages.map((m) => m.content).join("\n");
    expect(text).toContain("Final Answer:");
    expect(text).toContain("Your final answer must be one JSON object");
    expect(text).not.toMatch(/no text before or after/i);
  });
});

describe("readReply", () => {
  it("reads each shape", () => {
    expect(readReply("plain words")).toMatchObject({ type: "finish", output: "plain words" });
    expect(readReply('Thought: hmm\n{"a": 1}')).toMatchObject({ type: "finish", output: '{"a": 1}', thought: "Thought: hmm" });
    expect(readReply('Thought: x\nAction: t\nAction Input: {"a": 1}')).toMatchObject({ type: "action", tool: "t" });
    expect(() => readReply("Thought: x\nAction: t")).toThrow(/Action Input/);
    // The word inside prose is not an action.
    expect(readReply("Our call to Action: buy now.")).toMatchObject({ type: "finish", output: "Our call to Action: buy now." });
    expect(plainAnswer("Thought: only a thought")).toBe("only a thought");
  });
});
