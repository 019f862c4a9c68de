// The crewts demo: one agent with one tool, end to end. With OPENAI_API_KEY, ANTHROPIC_API_KEY or
// OLLAMA_HOST set it uses that provider; otherwise it runs offline against the built-in mock
// OpenAI-compatible server, over real HTTP, with the same code path as a real provider.
import { z } from "zod";
import { Agent, eventBus, LLM, tool } from "../src/index.js";
import { startMockOpenAIServer, type MockOpenAIServer } from "../src/testing/index.js";

const wordStats = tool({
  name: "word_stats",
  description: "Counts the words and characters of a text and finds its longest word.",
  schema: z.object({ text: z.string().describe("the text to measure") }),
  execute: ({ text }) => {
    const words = text.split(/\s+/).filter(Boolean);
    const longest = words.reduce((a, w) => (w.length > a.length ? w : a), "");
    return { words: words.length, characters: text.length, longest };
  },
});

const SENTENCE = "crewts brings CrewAI agents, tasks, crews and flows to TypeScript";

async function chooseModel(): Promise<{ llm: LLM; server?: MockOpenAIServer }> {
  if (process.env.OPENAI_API_KEY) return { llm: new LLM({ model: process.env.CREWTS_MODEL ?? "openai/gpt-4o-mini" }) };
  if (process.env.ANTHROPIC_API_KEY) return { llm: new LLM({ model: process.env.CREWTS_MODEL ?? "anthropic/claude-3-5-haiku-latest" }) };
  if (process.env.OLLAMA_HOST) return { llm: new LLM({ model: process.env.CREWTS_MODEL ?? "ollama/llama3.1" }) };
  console.log("No OPENAI_API_KEY, ANTHROPIC_API_KEY or OLLAMA_HOST set: running offline against the built-in mock OpenAI-compatible server (real HTTP on 127.0.0.1).");
  const server = await startMockOpenAIServer({
    // Plays the model's part: first pick the tool, then answer from the observation it got back.
    responses: (request) => {
      const { messages = [] } = request.body as { messages?: { role: string; content?: string }[] };
      const observed = messages.filter((m) => m.role === "assistant").map((m) => /Observation: (\{.*\})/s.exec(m.content ?? "")?.[1]).find(Boolean);
      if (!observed) {
        return `Thought: I should measure the sentence with the word_stats tool.\nAction: word_stats\nAction Input: {"text": "${SENTENCE}"}`;
      }
      const stats = JSON.parse(observed) as { words: number; characters: number; longest: string };
      return `Thought: I now know the final answer\nFinal Answer: The sentence has ${stats.words} words and ${stats.characters} characters; its longest word is "${stats.longest}".`;
    },
  });
  return { llm: new LLM({ model: "openai-compatible/mock-gpt", baseURL: server.url, apiKey: "offline-demo" }), server };
}

const { llm, server } = await chooseModel();
const offAction = eventBus.on("tool_usage_finished", (e) => console.log(`  [tool] ${e.toolName}(${JSON.stringify(e.toolArgs)}) -> ${e.output}`));
const offLLM = eventBus.on("llm_call_completed", (e) => console.log(`  [llm] ${e.model}: ${e.usage.totalTokens} tokens in ${Math.round(e.durationMs)} ms`));
try {
  const analyst = new Agent({
    role: "Text Analyst",
    goal: "Measure texts precisely and report the numbers",
    backstory: "You never guess a number: you measure with your tools.",
    llm,
    tools: [wordStats],
    nativeToolCalling: false,
  });
  console.log(`Agent "${analyst.role}" using ${llm.model}`);
  const result = await analyst.kickoff(`How many words and characters are in this sentence, and what is its longest word? "${SENTENCE}"`);
  console.log(`\nFinal answer: ${result.raw}`);
  console.log(`Usage: ${result.usageMetrics.totalTokens} tokens over ${result.usageMetrics.successfulRequests} LLM calls`);
} finally {
  offAction();
  offLLM();
  await server?.close();
}
