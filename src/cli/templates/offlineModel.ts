/** src/offline.ts of a new project: picks the model, or runs offline against crewts's mock server. */
export const offlineModelTemplate = `// The model your agents use. With a provider configured (in .env or the environment) it is that
// provider; otherwise the project runs offline against crewts's built-in mock OpenAI-compatible server
// (real HTTP on 127.0.0.1), which answers the way a model would, so everything works before you have a key.
import { LLM, type BaseLLM } from "crewts";
import { startMockOpenAIServer, type MockRequest } from "crewts/testing";

/** The model chooseLLM picked. */
export interface ChosenLLM {
  /** A model string such as "openai/gpt-4o-mini", the offline mock, or undefined: the agents' default (CREWTS_MODEL / MODEL). */
  llm: string | BaseLLM | undefined;
  /** True when the agents talk to the offline mock server. */
  offline: boolean;
  /** Stops the mock server when there is one; call it when the run is over. */
  close(): Promise<void>;
}

/** MODEL (or CREWTS_MODEL) when set, else a default model for the provider whose key is set, else offline. */
export async function chooseLLM(): Promise<ChosenLLM> {
  const env = process.env;
  // crewts reads CREWTS_MODEL and MODEL itself (and names them if they are wrong): no model to pass.
  if (env.CREWTS_MODEL || env.MODEL) return { llm: undefined, offline: false, close: async () => {} };
  const model =
    (env.OPENAI_API_KEY ? "openai/gpt-4o-mini"
      : env.ANTHROPIC_API_KEY ? "anthropic/claude-3-5-haiku-latest"
      : env.OLLAMA_HOST ? "ollama/llama3.1"
      : undefined);
  if (model) return { llm: model, offline: false, close: async () => {} };
  console.log(
    "Running offline against the built-in mock server: no OPENAI_API_KEY, ANTHROPIC_API_KEY, OLLAMA_HOST or MODEL is set. " +
      "Copy .env.example to .env and set one to use a real model.",
  );
  const server = await startMockOpenAIServer({ responses: offlineAnswer });
  return {
    // The mock answers in text (no tool calls), so agents use the text protocol with it.
    llm: new LLM({ model: "openai-compatible/mock", baseURL: server.url, apiKey: "offline", functionCalling: false }),
    offline: true,
    close: () => server.close(),
  };
}

interface Message {
  role: string;
  content?: unknown;
}

/** What the mock model answers: a ReAct final answer for a task, JSON for a schema, plain text for a question. */
function offlineAnswer(request: MockRequest): string {
  const messages = (request.body as { messages?: Message[] }).messages ?? [];
  const texts = messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? "")));
  const all = texts.join("\\n");
  const schema = /JSON schema[^{]*(\\{[\\s\\S]*\\})/.exec(texts.at(-1) ?? "")?.[1];
  const react = all.includes("Final Answer:");
  // A task prompt (agents without tools get one with no ReAct format) gets a draft; anything else is a question.
  const task = all.includes("Current Task:");
  if (!react && !schema && !task) return answerFromContext(messages, texts);
  const answer = schema ? JSON.stringify(sampleOf(parseSchema(schema))) : draft(all);
  return react ? "Thought: I now know the final answer\\nFinal Answer: " + answer : answer;
}

/** A plausible draft for the task in the prompt. */
function draft(prompt: string): string {
  const task = firstSentence(/Current Task: ([\\s\\S]*?)(?:\\n\\n|$)/.exec(prompt)?.[1] ?? "the task");
  const expected = firstSentence(/expected criteria for your final answer: (.*)/.exec(prompt)?.[1] ?? "a complete answer");
  const context = /This is the context you're working with:\\n([\\s\\S]*?)(?:\\n\\nBegin!|$)/.exec(prompt)?.[1];
  return [
    "## " + task,
    "",
    "- What was asked: " + task,
    "- What a good answer contains: " + expected,
    context ? "- Built on the earlier work: " + firstSentence(context.replace(/^[#\\s-]+/, "")) : "- Starting point: the inputs of this run",
    "",
    "(Written offline by the mock model. Set a provider key in .env for real answers.)",
  ].join("\\n");
}

/** Answers a question with the sentences of the conversation that share the most words with it. */
function answerFromContext(messages: Message[], texts: string[]): string {
  const question = texts[messages.map((m) => m.role).lastIndexOf("user")] ?? "";
  const words = new Set(question.toLowerCase().match(/[a-z0-9]{4,}/g) ?? []);
  const sentences = texts.slice(0, -1).join("\\n").split(/(?<=[.!?])\\s+|\\n+/).map((s) => s.trim()).filter((s) => s.length > 20);
  const scored = sentences
    .map((sentence) => ({ sentence, score: (sentence.toLowerCase().match(/[a-z0-9]{4,}/g) ?? []).filter((w) => words.has(w)).length }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score);
  if (scored.length === 0) return "The results do not say anything about that. Try running the crew again with other inputs.";
  return "From the results: " + scored.slice(0, 2).map((s) => s.sentence).join(" ");
}

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
}

function parseSchema(text: string): JsonSchema {
  try {
    return JSON.parse(text) as JsonSchema;
  } catch {
    return {};
  }
}

/** A value that fits the schema, so structured outputs and evaluations work offline. */
function sampleOf(schema: JsonSchema | undefined): unknown {
  if (schema?.enum?.length) return schema.enum[0];
  const type = Array.isArray(schema?.type) ? schema.type[0] : schema?.type;
  switch (type) {
    case "object":
      return Object.fromEntries(Object.entries(schema?.properties ?? {}).map(([key, value]) => [key, sampleOf(value)]));
    case "array":
      return [sampleOf(schema?.items)];
    case "integer":
    case "number":
      return Math.min(Math.max(8, schema?.minimum ?? 8), schema?.maximum ?? 8);
    case "boolean":
      return true;
    default:
      return "offline answer";
  }
}

function firstSentence(text: string): string {
  const sentence = text.replace(/\\s+/g, " ").trim().split(/(?<=[.!?])\\s/)[0] ?? "";
  return sentence.length > 160 ? sentence.slice(0, 157) + "..." : sentence;
}
`;
