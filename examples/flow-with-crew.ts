// A flow that runs crews: each draft is written by a one-agent crew and checked by a reviewer crew,
// the crews' outputs go into the flow state, and a router either publishes the draft or sends it
// back for another round. Runs offline: the agents talk over real HTTP to the built-in mock
// OpenAI-compatible server, which plays the models. Run: npx tsx examples/flow-with-crew.ts
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { Agent, Crew, eventBus, Flow, listen, LLM, router, start, Task } from "../src/index.js";
import { type MockRequest, startMockOpenAIServer } from "../src/testing/index.js";

process.env.CREWTS_STORAGE_DIR ??= mkdtempSync(join(tmpdir(), "crewts-flow-crew-example-"));

/** Plays both models offline: the writer adds an example once the reviewer asked for one; the reviewer wants one. */
function offlineModel(request: MockRequest): string {
  const { messages = [] } = request.body as { messages?: { role: string; content?: string }[] };
  const conversation = messages.map((m) => m.content ?? "").join("\n");
  if (conversation.includes("You are Writer")) {
    const topic = /Write a short paragraph about (.+?)\./.exec(conversation)?.[1] ?? "the topic";
    const draft = conversation.includes("Reviewer feedback:")
      ? `${topic} let one program wait for many things at once. For example, a server answers a request while the database looks up the next one.`
      : `${topic} let one program wait for many things at once.`;
    return `Thought: I can write this now.\nFinal Answer: ${draft}`;
  }
  const verdict = /for example/i.test(conversation) ? "APPROVED" : "NEEDS WORK: add a concrete example.";
  return `Thought: I have checked the draft.\nFinal Answer: ${verdict}`;
}

const server = await startMockOpenAIServer({ responses: offlineModel });
const llm = new LLM({ model: "openai-compatible/mock", baseURL: server.url, apiKey: "offline" });

const ArticleState = z.object({
  topic: z.string().default("Async functions"),
  draft: z.string().default(""),
  review: z.string().default(""),
  rounds: z.number().default(0),
});

/** Drafts with a writer crew, reviews with a reviewer crew, and loops until the reviewer approves (at most three rounds). */
class ArticleFlow extends Flow<z.infer<typeof ArticleState>> {
  override initialState = ArticleState;

  // A conditional start: the flow has no other start, so it runs at kickoff, and again on "revise".
  @start("revise") async writeDraft() {
    this.state.rounds += 1;
    const writer = new Agent({ role: "Writer", goal: "Write clear, short paragraphs", backstory: "You explain technical ideas simply.", llm });
    const feedback = this.state.review ? `\nReviewer feedback: ${this.state.review}` : "";
    const task = new Task({
      description: `Write a short paragraph about {topic}.${feedback}`,
      expectedOutput: "One paragraph of plain text.",
      agent: writer,
    });
    const output = await new Crew({ agents: [writer], tasks: [task] }).kickoff({ topic: this.state.topic });
    this.state.draft = output.raw;
    return output.raw;
  }

  @listen("writeDraft") async reviewDraft(draft: string) {
    const reviewer = new Agent({ role: "Reviewer", goal: "Make sure every paragraph has a concrete example", backstory: "You are a strict editor.", llm });
    const task = new Task({
      description: `Review this paragraph: "${draft}". Answer APPROVED, or NEEDS WORK with what to change.`,
      expectedOutput: "APPROVED, or NEEDS WORK: <what to change>",
      agent: reviewer,
    });
    const output = await new Crew({ agents: [reviewer], tasks: [task] }).kickoff();
    this.state.review = output.raw;
    return output.raw;
  }

  @router("reviewDraft") decide() {
    if (this.state.review.startsWith("APPROVED")) return "publish";
    return this.state.rounds < 3 ? "revise" : "giveUp";
  }

  @listen("publish") publishDraft() {
    return `Published after ${this.state.rounds} rounds: ${this.state.draft}`;
  }

  @listen("giveUp") reportFailure() {
    return `Not published: ${this.state.review}`;
  }
}

const off = eventBus.on("method_execution_finished", (e) => {
  const result = typeof e.result === "string" ? e.result : JSON.stringify(e.result);
  console.log(`[${e.methodName}] ${result}`);
});
try {
  const flow = new ArticleFlow();
  const result = await flow.kickoff({ topic: "Async functions" });
  console.log(`\nResult: ${String(result)}`);
  console.log(`State: rounds=${flow.state.rounds}, review=${flow.state.review}`);
  console.log(`LLM requests served by the mock server: ${server.requests.length}`);
} finally {
  off();
  await server.close();
}
