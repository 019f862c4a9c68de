import { Agent } from "../../src/agent/index.js";
import { FakeLLM, type FakeLLMOptions, type FakeResponse, type FakeResponder } from "../../src/testing/index.js";

/** A ReAct final answer, as a model following the text protocol writes it. */
export const final = (text: string): string => `Thought: I now know the final answer\nFinal Answer: ${text}`;

/** An agent on a FakeLLM with the given script. */
export function fakeAgent(responses: FakeResponse[] | FakeResponder, options: FakeLLMOptions = {}, role = "Researcher"): { agent: Agent; llm: FakeLLM } {
  const llm = new FakeLLM(responses, options);
  const agent = new Agent({ role, goal: "Find facts", backstory: "You are thorough.", llm });
  return { agent, llm };
}

/** The user message of a recorded call. */
export function userText(llm: FakeLLM, call: number): string {
  const messages = llm.calls[call]?.messages ?? [];
  return messages.filter((m) => m.role === "user").map((m) => m.content).join("\n");
}

/**
 * Responders that answer only once all of them have been called, with `answers[i]`. Models called one
 * after the other never all meet, so a test using them passes only if the calls run side by side.
 */
export function meetingResponders(...answers: string[]): FakeResponder[] {
  let called = 0;
  let allCalled!: () => void;
  const met = new Promise<void>((resolve) => (allCalled = resolve));
  return answers.map((answer) => async () => {
    if (++called === answers.length) allCalled();
    await met;
    return final(answer);
  });
}
