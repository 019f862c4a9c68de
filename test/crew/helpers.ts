import { Agent } from "../../src/agent/index.js";
import type { AgentOptions } from "../../src/agent/index.js";
import { Task } from "../../src/task/index.js";
import type { TaskOptions } from "../../src/task/index.js";
import { FakeLLM, type FakeLLMOptions, type FakeResponder, type FakeResponse } from "../../src/testing/index.js";

/** A ReAct final answer. */
export const final = (text: string): string => `Thought: I now know the final answer\nFinal Answer: ${text}`;

/** A ReAct tool use. */
export const action = (tool: string, input: Record<string, unknown>): string =>
  `Thought: I will use a tool\nAction: ${tool}\nAction Input: ${JSON.stringify(input)}`;

/** An agent on its own FakeLLM. */
export function fakeAgent(
  role: string,
  responses: FakeResponse[] | FakeResponder,
  llmOptions: FakeLLMOptions = {},
  agentOptions: Partial<AgentOptions> = {},
): { agent: Agent; llm: FakeLLM } {
  const llm = new FakeLLM(responses, llmOptions);
  const agent = new Agent({ role, goal: `Work as ${role}`, backstory: `You are a ${role}.`, llm, ...agentOptions });
  return { agent, llm };
}

/** A task with a short expected output. */
export function task(description: string, agent: Agent | undefined, options: Partial<TaskOptions> = {}): Task {
  return new Task({ description, expectedOutput: "A short answer", ...(agent ? { agent } : {}), ...options });
}

/** The user messages of a recorded call, joined. */
export function userText(llm: FakeLLM, call = 0): string {
  return (llm.calls[call]?.messages ?? [])
    .filter((m) => m.role === "user")
    .map((m) => m.content)
    .join("\n");
}

/** Every message of a recorded call, joined. */
export function allText(llm: FakeLLM, call = 0): string {
  return (llm.calls[call]?.messages ?? []).map((m) => m.content).join("\n");
}
