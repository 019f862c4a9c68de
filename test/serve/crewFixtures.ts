import { Agent } from "../../src/agent/index.js";
import { Crew } from "../../src/crew/index.js";
import type { CheckpointConfig } from "../../src/runtime/checkpoint/types.js";
import { InMemoryTaskOutputStore } from "../../src/storage/index.js";
import { Task } from "../../src/task/index.js";
import type { FakeLLM } from "../../src/testing/index.js";

/** A fresh 3-task crew on `llm` (writer of {topic}), as a server's crew factory makes one per kickoff. */
export function threeTaskCrew(llm: FakeLLM, options: { llmRateLimit?: { requestsPerMinute: number }; checkpoint?: CheckpointConfig } = {}): Crew {
  const agent = new Agent({ role: "Writer on {topic}", goal: "Write about {topic}", backstory: "You write.", llm });
  const tasks = ["Outline {topic}", "Draft {topic}", "Polish {topic}"].map((description) => new Task({ description, expectedOutput: "Text", agent }));
  return new Crew({ name: "writers", agents: [agent], tasks, taskOutputStore: new InMemoryTaskOutputStore(), ...options });
}

/** The answer the echo model gives: which step of which topic it was asked. */
export function echoAnswer(messages: { content: string }[]): string {
  const text = messages.map((m) => m.content).join("\n");
  const step = /(Outline|Draft|Polish) (\S+)/.exec(text);
  return step ? `${step[1]} of ${step[2]} done` : "nothing asked";
}
