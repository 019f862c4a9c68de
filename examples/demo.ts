// The crewts demo: a two-agent crew. A researcher looks facts up with a tool; a writer turns them
// (passed as context) into a structured brief that a guardrail checks. With OPENAI_API_KEY,
// ANTHROPIC_API_KEY or OLLAMA_HOST set it uses that provider; otherwise it runs offline against the
// built-in mock OpenAI-compatible server, over real HTTP, through the same code path.
import { z } from "zod";
import { Agent, Crew, eventBus, LLM, Task, tool, type GuardrailResult, type TaskOutput } from "../src/index.js";
import { startMockOpenAIServer, type MockOpenAIServer, type MockRequest } from "../src/testing/index.js";

const NOTES = [
  "TypeScript adds static types to JavaScript and compiles to plain JavaScript.",
  "TypeScript was released by Microsoft in 2012.",
  "TypeScript's type checker catches many bugs before the code runs.",
  "Node.js runs JavaScript outside the browser on the V8 engine.",
  "Node.js 20 ships a built-in test runner and fetch.",
];

// A real tool: keyword search over the notes above.
const searchNotes = tool({
  name: "search_notes",
  description: "Searches the team's notes and returns every note that mentions the query word.",
  schema: z.object({ query: z.string().describe("one keyword to look for") }),
  execute: ({ query }) => {
    const hits = NOTES.filter((note) => note.toLowerCase().includes(query.toLowerCase()));
    return hits.length > 0 ? hits.map((h) => `- ${h}`).join("\n") : "No note mentions that.";
  },
});

const Brief = z.object({
  title: z.string(),
  summary: z.string(),
  facts: z.array(z.string()).min(3),
});

// The guardrail: a brief's summary must be short.
const shortSummary = (output: TaskOutput): GuardrailResult => {
  const brief = output.parsed as z.infer<typeof Brief> | undefined;
  const words = brief?.summary.split(/\s+/).filter(Boolean).length ?? 0;
  return words <= 25 ? [true, output.raw] : [false, `The summary has ${words} words; keep it to 25 words or fewer.`];
};

/** Plays both agents' parts offline, reading the conversation the way a model would. */
function offlineModel(request: MockRequest): string {
  const { messages = [] } = request.body as { messages?: { role: string; content?: string }[] };
  const text = (i: number) => messages[i]?.content ?? "";
  const all = messages.map((m) => m.content ?? "").join("\n");
  if (text(0).includes("You are Researcher")) {
    const observation = /Observation: ([\s\S]*)$/.exec(messages.at(-1)?.role === "assistant" ? text(messages.length - 1) : "")?.[1];
    if (!observation) return 'Thought: I should check our notes first.\nAction: search_notes\nAction Input: {"query": "TypeScript"}';
    return `Thought: I now know the final answer\nFinal Answer: Key facts about TypeScript:\n${observation.trim()}`;
  }
  const facts = [...all.matchAll(/^- (TypeScript[^\n]*)$/gm)].map((m) => m[1]!).slice(0, 3);
  const retried = all.includes("did not pass validation");
  const summary = retried
    ? "TypeScript is JavaScript with static types, released by Microsoft in 2012, that catches bugs before code runs."
    : "TypeScript is a language that takes JavaScript and adds an optional static type system on top, which was released to the public by Microsoft in the year 2012 and which lets a type checker find many kinds of bugs before the program ever runs.";
  return `Thought: I now know the final answer\nFinal Answer: ${JSON.stringify({ title: "TypeScript in brief", summary, facts })}`;
}

async function chooseModel(): Promise<{ llm: LLM; server?: MockOpenAIServer }> {
  const model = process.env.CREWTS_MODEL;
  if (process.env.OPENAI_API_KEY) return { llm: new LLM({ model: model ?? "openai/gpt-4o-mini" }) };
  if (process.env.ANTHROPIC_API_KEY) return { llm: new LLM({ model: model ?? "anthropic/claude-3-5-haiku-latest", maxTokens: 2048 }) };
  if (process.env.OLLAMA_HOST) return { llm: new LLM({ model: model ?? "ollama/llama3.1" }) };
  console.log("No OPENAI_API_KEY, ANTHROPIC_API_KEY or OLLAMA_HOST set: running offline against the built-in mock OpenAI-compatible server (real HTTP on 127.0.0.1).");
  const server = await startMockOpenAIServer({ responses: offlineModel });
  return { llm: new LLM({ model: "openai-compatible/mock-gpt", baseURL: server.url, apiKey: "offline-demo" }), server };
}

const { llm, server } = await chooseModel();
const subscriptions = [
  eventBus.on("task_started", (e) => console.log(`\n▶ ${e.agentRole ?? "agent"} starts: ${e.taskName ?? e.taskId}`)),
  eventBus.on("tool_usage_finished", (e) => console.log(`  [tool] ${e.toolName}(${JSON.stringify(e.toolArgs)}) ->\n${e.output.replace(/^/gm, "    ")}`)),
  eventBus.on("llm_guardrail_completed", (e) => console.log(`  [guardrail] ${e.success ? "passed" : `rejected: ${e.error ?? ""}`}`)),
  eventBus.on("task_completed", (e) => console.log(`✔ ${e.taskName ?? e.taskId} done`)),
];
try {
  const researcher = new Agent({
    role: "Researcher",
    goal: "Find accurate facts about {topic} in the team's notes",
    backstory: "You never state a fact you have not looked up.",
    llm,
    tools: [searchNotes],
    nativeToolCalling: false,
  });
  const writer = new Agent({
    role: "Writer",
    goal: "Write short, exact briefs",
    backstory: "You turn research into clear briefs for busy readers.",
    llm,
  });
  const research = new Task({
    name: "research",
    description: "Look up the key facts about {topic} in the notes.",
    expectedOutput: "A bullet list of facts about {topic}, each from the notes.",
    agent: researcher,
  });
  const brief = new Task({
    name: "brief",
    description: "Write a brief about {topic} from the research.",
    expectedOutput: "A title, a summary of at most 25 words, and at least three facts.",
    agent: writer,
    context: [research],
    outputSchema: Brief,
    guardrail: shortSummary,
  });
  const crew = new Crew({ agents: [researcher, writer], tasks: [research, brief] });
  console.log(`Crew of ${crew.agents.map((a) => a.role).join(" and ")}, using ${llm.model}`);
  const result = await crew.kickoff({ topic: "TypeScript" });
  console.log(`\nBrief (structured output):\n${JSON.stringify(result.parsed, null, 2)}`);
  console.log(`\nUsage: ${result.tokenUsage.totalTokens} tokens over ${result.tokenUsage.successfulRequests} LLM calls`);
} finally {
  for (const off of subscriptions) off();
  await server?.close();
}
