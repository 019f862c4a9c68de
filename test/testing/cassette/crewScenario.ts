import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { Agent, Crew, LLM, StringKnowledgeSource, Task, tool } from "../../../src/index.js";
import type { MockResponse } from "../../../src/testing/index.js";

/** The key the recording run sends; it must never reach a cassette. */
export const RECORD_KEY = "sk-cassette-test-secret-9f3k2";

/** What the mock upstream answers, in order: a tool call (streamed), the OpenAI agent's answer, the Anthropic agent's answer. */
export const SCRIPT: MockResponse[] = [
  { toolCalls: [{ name: "multiplier", arguments: { first_number: 6, second_number: 7 } }] },
  "The product is 42.",
  { text: "Summary: six times seven is 42, and widgets can be returned within 45 days.", usage: { promptTokens: 120, completionTokens: 17 } },
];

/** The parts of a crew run a replay must reproduce. */
export interface CrewRunResult {
  raw: string;
  tasks: string[];
  usage: unknown;
  toolRuns: number[][];
}

/**
 * A two-agent crew over real provider code (AI SDK OpenAI chat and Anthropic messages, both
 * streaming) with a tool and crew knowledge embedded over HTTP, all sent to `url`.
 */
export async function runCrew(url: string, apiKey: string, options: { firstTask?: string } = {}): Promise<CrewRunResult> {
  // A fresh storage folder per run: knowledge indexed by one run must not spare the next its embeddings.
  process.env.CREWTS_STORAGE_DIR = mkdtempSync(join(tmpdir(), "crewts-cassette-run-"));
  const retry = { maxRetries: 2, retry: { baseDelayMs: 1, maxDelayMs: 5 } };
  const toolRuns: number[][] = [];
  const multiplier = tool({
    name: "multiplier",
    description: "Multiplies two numbers",
    schema: z.object({ first_number: z.number(), second_number: z.number() }),
    execute: ({ first_number, second_number }) => {
      toolRuns.push([first_number, second_number]);
      return String(first_number * second_number);
    },
  });
  const calculator = new Agent({
    role: "Calculator",
    goal: "Compute products exactly",
    backstory: "You use the multiplier tool for every product.",
    llm: new LLM({ model: "openai/gpt-4o-mini", baseURL: url, apiKey, stream: true, ...retry }),
    tools: [multiplier],
  });
  const writer = new Agent({
    role: "Writer",
    goal: "Summarise results",
    backstory: "You write one-line summaries.",
    llm: new LLM({ model: "anthropic/claude-3-5-haiku-latest", baseURL: url, apiKey, stream: true, maxTokens: 256, ...retry }),
  });
  const crew = new Crew({
    name: "cassette-crew",
    agents: [calculator, writer],
    tasks: [
      new Task({ description: options.firstTask ?? "What is 6 times 7?", expectedOutput: "The product", agent: calculator }),
      new Task({ description: "Summarise the product and the refund window.", expectedOutput: "One line", agent: writer }),
    ],
    knowledgeSources: [new StringKnowledgeSource({ content: "Refund policy: widgets can be returned within 45 days of delivery." })],
    embedder: { provider: "openai", model: "text-embedding-3-small", baseURL: url, apiKey, dimensions: 64, ...retry },
  });
  const output = await crew.kickoff();
  return { raw: output.raw, tasks: output.tasksOutput.map((task) => task.raw), usage: output.tokenUsage, toolRuns };
}
