import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  Agent,
  AgentConfigError,
  Crew,
  CrewMemoryError,
  CrewValidationError,
  eventBus,
  Knowledge,
  StringKnowledgeSource,
  Task,
  TextFileKnowledgeSource,
  type ChatMessage,
  type CrewtsEvent,
} from "../../src/index.js";
import { FakeLLM, mockEmbedding, startMockOpenAIServer } from "../../src/testing/index.js";

const POLICY =
  "Refund policy of Acme Widgets: customers may return any widget within 45 days of delivery for a full refund. " +
  "Opened boxes are accepted. Shipping costs are refunded only when the widget arrived damaged.";
const HOURS = "Support hours of Acme Widgets: the help desk answers calls Monday to Friday from 8:00 to 18:00 Berlin time.";
const ASTRONOMY = "Jupiter is the largest planet of the solar system; its Great Red Spot is a storm older than three centuries.";

const answer = (text: string) => `Thought: I know this\nFinal Answer: ${text}`;
const userText = (messages: ChatMessage[]) => messages.filter((m) => m.role === "user").map((m) => m.content).join("\n");

const offs: (() => void)[] = [];
afterEach(() => {
  for (const off of offs.splice(0)) off();
});

function record<K extends "knowledge_retrieval_completed" | "knowledge_ingestion_completed" | "knowledge_query_started" | "knowledge_query_completed" | "knowledge_query_failed">(type: K): CrewtsEvent<K>[] {
  const events: CrewtsEvent<K>[] = [];
  offs.push(eventBus.on(type, (event) => void events.push(event)));
  return events;
}

describe("agent knowledge", () => {
  it("puts the snippets found for the task into the agent's prompt, and leaves unrelated ones out", async () => {
    const llm = new FakeLLM([answer("45 days")]);
    const agent = new Agent({
      role: "Support agent",
      goal: "Answer customers",
      backstory: "You know the company's policies.",
      llm,
      knowledgeSources: [new StringKnowledgeSource({ content: POLICY }), new StringKnowledgeSource({ content: ASTRONOMY })],
    });
    const retrieved = record("knowledge_retrieval_completed");
    const task = new Task({ description: "How many days does a customer have to return a widget for a refund?", expectedOutput: "A number of days", agent });
    const output = await task.executeSync();
    expect(output.raw).toBe("45 days");
    const prompt = userText(llm.calls[0]!.messages);
    expect(prompt).toContain("Additional Information:");
    expect(prompt).toContain("within 45 days of delivery");
    expect(prompt).not.toContain("Great Red Spot");
    expect(retrieved).toHaveLength(1);
    expect(retrieved[0]).toMatchObject({ collectionName: "Support agent", agentRole: "Support agent", taskId: task.id });
    expect(retrieved[0]!.retrievedKnowledge[0]).toContain("45 days");
  });

  it("works for agent.kickoff too, within resultsLimit and scoreThreshold", async () => {
    const llm = new FakeLLM([answer("ok"), answer("ok")]);
    const sources = [POLICY, HOURS, ASTRONOMY].map((content) => new StringKnowledgeSource({ content }));
    const agent = new Agent({ role: "Helper", goal: "Help", backstory: "Helpful.", llm, knowledgeSources: sources, knowledgeConfig: { resultsLimit: 1 } });
    await agent.kickoff("When does the Acme Widgets help desk answer calls, and what is the refund policy?");
    const first = userText(llm.calls[0]!.messages);
    expect(first).toContain("Additional Information:");
    expect([first.includes("Monday to Friday"), first.includes("within 45 days")].filter(Boolean)).toHaveLength(1);
    const strict = new Agent({ role: "Strict", goal: "Help", backstory: "Helpful.", llm, knowledgeSources: sources, knowledgeConfig: { scoreThreshold: 1 } });
    await strict.kickoff("Tell me about zebras and giraffes");
    expect(userText(llm.calls[1]!.messages)).not.toContain("Additional Information");
  });

  it("rewrites the task into a search query with the agent's LLM when asked, and falls back to the task text", async () => {
    const llm = new FakeLLM(["refund days widget", answer("45")]);
    const agent = new Agent({
      role: "Rewriter",
      goal: "Help",
      backstory: "Helpful.",
      llm,
      knowledgeSources: [new StringKnowledgeSource({ content: POLICY })],
      knowledgeConfig: { rewriteQuery: true },
    });
    const completed = record("knowledge_query_completed");
    await agent.kickoff("A customer asks: how long can I send things back?");
    expect(llm.calls).toHaveLength(2);
    expect(userText(llm.calls[0]!.messages)).toContain("how long can I send things back");
    expect(completed.map((e) => e.query)).toEqual(["refund days widget"]);
    expect(userText(llm.calls[1]!.messages)).toContain("within 45 days");
    expect(agent.usageMetrics.successfulRequests).toBe(2);

    const failing = new FakeLLM([new Error("model down"), answer("45")]);
    const failed = record("knowledge_query_failed");
    const fallback = new Agent({ ...agent.options, role: "Fallback", llm: failing });
    await fallback.kickoff("What is the refund policy for a widget?");
    expect(failed.map((e) => e.error)).toEqual([expect.stringContaining("model down")]);
    expect(userText(failing.calls[1]!.messages)).toContain("within 45 days");
  });

  it("rejects sources that are not knowledge sources, and bad embedders, at construction", () => {
    const base = { role: "R", goal: "G", backstory: "B", llm: new FakeLLM([]) };
    expect(() => new Agent({ ...base, knowledgeSources: ["some text" as never] })).toThrow(AgentConfigError);
    expect(() => new Agent({ ...base, knowledgeSources: ["some text" as never] })).toThrow(/new StringKnowledgeSource/);
    expect(() => new Agent({ ...base, embedder: "nope/model" })).toThrow(/provider\/model/);
    expect(() => new Agent({ ...base, knowledgeConfig: { resultsLimit: 0 } })).toThrow(/knowledgeConfig\.resultsLimit/);
  });
});

describe("crew knowledge", () => {
  const agentWith = (llm: FakeLLM) => new Agent({ role: "Support agent", goal: "Answer customers", backstory: "Experienced.", llm });

  it("is searched for every task of every agent and by crew.queryKnowledge", async () => {
    const llm = new FakeLLM([answer("45 days"), answer("8 to 18")]);
    const agent = agentWith(llm);
    const crew = new Crew({
      agents: [agent],
      tasks: [
        new Task({ description: "What is the refund window for a widget?", expectedOutput: "days", agent }),
        new Task({ description: "When does the help desk answer calls?", expectedOutput: "hours", agent }),
      ],
      knowledgeSources: [new StringKnowledgeSource({ content: POLICY }), new StringKnowledgeSource({ content: HOURS })],
    });
    await crew.kickoff();
    expect(userText(llm.calls[0]!.messages)).toContain("within 45 days");
    expect(userText(llm.calls[1]!.messages)).toContain("Monday to Friday");
    const results = await crew.queryKnowledge(["help desk calls"]);
    expect(results[0]?.content).toBe(HOURS);
    expect(results[0]?.metadata).toMatchObject({ source: "string", chunkIndex: 0 });
    // The crew's knowledge is lent for the kickoff only.
    expect(agent.crewKnowledge).toBeUndefined();
    expect(await new Crew({ agents: [agent], tasks: [new Task({ description: "x", expectedOutput: "y", agent })] }).queryKnowledge(["anything"])).toEqual([]);
    await expect(crew.queryKnowledge("help desk" as never)).rejects.toThrow(/list of query strings/);
  });

  it("searches with an embedder over HTTP (hybrid), the key kept out of everything it shows", async () => {
    const server = await startMockOpenAIServer({ responses: [] });
    try {
      const sources = [
        new StringKnowledgeSource({ content: "Felines purr when content and chase small rodents at night." }),
        new StringKnowledgeSource({ content: "The quarterly budget review takes place in the finance office." }),
      ];
      const embedder = { provider: "openai" as const, model: "text-embedding-3-small", baseURL: server.url, apiKey: "sk-test-secret", dimensions: 64 };
      const agent = agentWith(new FakeLLM([]));
      const crew = new Crew({ name: "semantic", agents: [agent], tasks: [new Task({ description: "x", expectedOutput: "y", agent })], knowledgeSources: sources, embedder });
      const results = await crew.queryKnowledge(["felines purr rodents"], { scoreThreshold: 0 });
      expect(results[0]?.content).toContain("Felines purr");
      // Hybrid: the best document is first in both rankings, so its fused score is 1.
      expect(results[0]?.score).toBe(1);
      expect(server.requests.some((r) => r.path.endsWith("/embeddings"))).toBe(true);
      expect(crew.embedder?.id).toBe("openai/text-embedding-3-small");
      expect(JSON.stringify(crew.embedder)).not.toContain("sk-test-secret");
    } finally {
      await server.close();
    }
  });

  it("takes an embedder as a plain object with embed(texts) and dimensions (vector search offline)", async () => {
    const embedded: string[] = [];
    const embedder = {
      dimensions: 64,
      embed: async (texts: string[]) => {
        embedded.push(...texts);
        return texts.map((text) => mockEmbedding(text, 64));
      },
    };
    const agent = agentWith(new FakeLLM([]));
    const sources = [new StringKnowledgeSource({ content: POLICY }), new StringKnowledgeSource({ content: HOURS })];
    const crew = new Crew({ name: "plain-embedder", agents: [agent], tasks: [new Task({ description: "x", expectedOutput: "y", agent })], knowledgeSources: sources, embedder });
    const results = await crew.queryKnowledge(["help desk calls"], { scoreThreshold: 0 });
    expect(results[0]?.content).toBe(HOURS);
    expect(embedded).toContain(POLICY);
    expect(embedded).toContain("help desk calls");
    expect(crew.embedder?.id).toMatch(/^custom\//);
  });

  it("indexes once per crew, shared by kickoffForEach's copies", async () => {
    const llm = new FakeLLM(() => answer("done"));
    const agent = agentWith(llm);
    const ingested = record("knowledge_ingestion_completed");
    const crew = new Crew({
      name: "batch",
      agents: [agent],
      tasks: [new Task({ description: "Summarize the refund policy for {who}", expectedOutput: "text", agent })],
      knowledgeSources: [new StringKnowledgeSource({ content: POLICY })],
    });
    await crew.kickoffForEach([{ who: "a" }, { who: "b" }, { who: "c" }], { concurrency: 3 });
    expect(ingested.filter((e) => e.collectionName === "batch")).toHaveLength(1);
    for (const call of llm.calls) expect(userText(call.messages)).toContain("within 45 days");
  });

  it("resets crew and agent knowledge, and refuses kinds the crew does not have", async () => {
    const llm = new FakeLLM(() => answer("ok"));
    const agent = new Agent({ role: "Owner", goal: "G", backstory: "B", llm, knowledgeSources: [new StringKnowledgeSource({ content: HOURS })] });
    const crew = new Crew({
      name: "resettable",
      agents: [agent],
      tasks: [new Task({ description: "When is the help desk open?", expectedOutput: "hours", agent })],
      knowledgeSources: [new StringKnowledgeSource({ content: POLICY })],
    });
    await crew.kickoff();
    expect(await crew.queryKnowledge(["refund widget"])).toHaveLength(1);
    expect(await agent.knowledgeBase()!.store.count()).toBe(1);
    await crew.resetMemories("knowledge");
    expect(await crew.queryKnowledge(["refund widget"])).toHaveLength(1); // indexed again on the next query
    await crew.resetMemories("agent_knowledge");
    expect(await agent.knowledgeBase()!.store.count()).toBe(0);
    await crew.resetMemories("all");
    const plain = new Crew({ agents: [agentWith(llm)], tasks: [new Task({ description: "x", expectedOutput: "y", agent: agentWith(llm) })] });
    await expect(plain.resetMemories("knowledge")).rejects.toThrow(CrewMemoryError);
    await expect(plain.resetMemories("agent_knowledge")).rejects.toThrow("Agent knowledge is not enabled on crew 'crew'");
    expect(() => new Crew({ agents: [agent], tasks: [new Task({ description: "x", expectedOutput: "y", agent })], knowledgeSources: [{ content: "x" } as never] })).toThrow(CrewValidationError);
  });
});

describe("Knowledge over files", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("deletes the chunks of text that changed or left the sources, and keeps unchanged ones", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crewts-knowledge-"));
    dirs.push(dir);
    const file = join(dir, "faq.md");
    writeFileSync(file, "The office parrot is named Captain Flint.\n\nThe cafeteria serves lasagna on Thursdays.");
    const first = new Knowledge({ collectionName: "files", sources: [new TextFileKnowledgeSource({ filePaths: [file], chunkSize: 60, chunkOverlap: 0 })] });
    expect((await first.query(["parrot name"]))[0]?.content).toContain("Captain Flint");
    expect(await first.store.count()).toBe(2);
    await first.close();

    writeFileSync(file, "The cafeteria serves lasagna on Thursdays.");
    const ingested = record("knowledge_ingestion_completed");
    const second = new Knowledge({ collectionName: "files", sources: [new TextFileKnowledgeSource({ filePaths: [file], chunkSize: 60, chunkOverlap: 0 })] });
    expect(await second.query(["parrot name"])).toEqual([]);
    expect((await second.query(["lasagna"]))[0]?.metadata.source).toBe(file);
    expect(ingested[0]).toMatchObject({ chunks: 1, removedChunks: 1 });
    await second.close();

    const third = new Knowledge({ collectionName: "files", sources: [new StringKnowledgeSource({ content: ASTRONOMY })] });
    expect(await third.query(["lasagna"])).toEqual([]);
    expect(await third.store.count()).toBe(1);
    await third.close();
  });

  it("names a missing file in a clear error when a task needs it, and tries again next time", async () => {
    const llm = new FakeLLM([answer("never")]);
    const missing = join(tmpdir(), "crewts-no-such-dir", "handbook.txt");
    const agent = new Agent({ role: "Reader", goal: "Read", backstory: "Reads.", llm, knowledgeSources: [new TextFileKnowledgeSource({ filePaths: [missing] })] });
    await expect(agent.kickoff("What does the handbook say?")).rejects.toThrow(missing);
    expect(llm.calls).toHaveLength(0);
  });
});
