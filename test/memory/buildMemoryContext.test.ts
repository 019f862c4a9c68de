import { afterEach, describe, expect, it } from "vitest";
import { eventBus, type CrewtsEvent } from "../../src/events/index.js";
import { buildMemoryContext, renderWithinBudget } from "../../src/memory/buildMemoryContext.js";
import { LongTermMemory } from "../../src/memory/LongTermMemory.js";
import { ShortTermMemory } from "../../src/memory/ShortTermMemory.js";
import type { Memory, MemoryItem, MemoryType } from "../../src/memory/types.js";
import { storageFile } from "./helpers.js";

afterEach(() => eventBus.clear());

const item = (content: string, score: number): MemoryItem => ({ id: content, content, metadata: {}, score, relevance: score, createdAt: 0, importance: 0.5 });

/** A memory answering fixed items (or failing), recording the searches. */
function cannedMemory(kind: MemoryType, items: MemoryItem[] | Error): Memory & { queries: { query: string; limit: number | undefined }[] } {
  const queries: { query: string; limit: number | undefined }[] = [];
  return {
    kind,
    queries,
    save: async () => undefined,
    search: async (query, options) => {
      queries.push({ query, limit: options?.limit });
      if (items instanceof Error) throw items;
      return items;
    },
    reset: async () => undefined,
    flush: async () => undefined,
    close: async () => undefined,
  };
}

describe("buildMemoryContext", () => {
  it("lists each memory's items under CrewAI's headings, in a fixed order", async () => {
    const short = cannedMemory("short", [item("The API key was rotated", 0.9)]);
    const context = await buildMemoryContext({
      query: "Deploy the service",
      external: cannedMemory("external", [item("User prefers Fridays", 0.5)]),
      entity: cannedMemory("entity", [item("Acme (company): the client", 0.6)]),
      long: cannedMemory("long", [item("Run the tests first", 0.7), item("Tag the release", 0.65)]),
      short,
      limit: 4,
    });
    expect(context).toBe(
      [
        "Recent Insights:\n- The API key was rotated",
        "Historical Data:\n- Run the tests first\n- Tag the release",
        "Entities:\n- Acme (company): the client",
        "External memories:\n- User prefers Fridays",
      ].join("\n\n"),
    );
    expect(short.queries).toEqual([{ query: "Deploy the service", limit: 4 }]);
  });

  it("is empty when nothing is found, and leaves out a memory whose search fails", async () => {
    expect(await buildMemoryContext({ query: "q", short: cannedMemory("short", []) })).toBe("");
    expect(await buildMemoryContext({ query: "q" })).toBe("");
    const context = await buildMemoryContext({ query: "q", short: cannedMemory("short", new Error("disk gone")), entity: cannedMemory("entity", [item("Bob (person)", 0.4)]) });
    expect(context).toBe("Entities:\n- Bob (person)");
  });

  it("keeps the highest-scored items within the token budget", async () => {
    const long = "x".repeat(300);
    const context = await buildMemoryContext({
      query: "q",
      short: cannedMemory("short", [item(`low ${long}`, 0.2), item("best short", 0.95)]),
      long: cannedMemory("long", [item(`mid ${long}`, 0.8)]),
      tokenBudget: 100,
    });
    expect(context.length).toBeLessThanOrEqual(400);
    const lines = context.split("\n");
    // Best first: "best short" and the whole "mid" item fit; what is left of the budget holds the start of "low".
    expect(lines.slice(0, 2)).toEqual(["Recent Insights:", "- best short"]);
    expect(lines[2]).toMatch(/^- low x+…$/);
    expect(lines.slice(3)).toEqual(["", "Historical Data:", `- mid ${long}`]);
    // Nothing fits a tiny budget.
    expect(renderWithinBudget([{ kind: "short", item: item("a long enough sentence that will not fit at all", 1) }], 30)).toEqual({ text: "", count: 0 });
  });

  it("searches real memories and emits retrieval events", async () => {
    const short = new ShortTermMemory({ path: storageFile("context-short.db") });
    const longTerm = new LongTermMemory({ path: storageFile("context-long.db") });
    try {
      await short.save("The invoice total was 420 euros");
      await longTerm.saveEvaluation({ taskDescription: "Check the invoice totals", agentRole: "Accountant", quality: 8, suggestions: ["Compare with the purchase order"] });
      const events: CrewtsEvent[] = [];
      eventBus.onAny((event) => {
        if (event.type.startsWith("memory_retrieval")) events.push(event);
      });
      const context = await buildMemoryContext({ query: "Check the invoice total", short, long: longTerm, source: { agentRole: "Accountant", taskId: "t9" } });
      expect(context).toBe("Recent Insights:\n- The invoice total was 420 euros\n\nHistorical Data:\n- Compare with the purchase order");
      expect(events).toEqual([
        expect.objectContaining({ type: "memory_retrieval_started", query: "Check the invoice total", memoryKinds: ["short", "long"], agentRole: "Accountant", taskId: "t9" }),
        expect.objectContaining({ type: "memory_retrieval_completed", memoryContent: context, itemsCount: 2, retrievalTimeMs: expect.any(Number) }),
      ]);
    } finally {
      await short.close();
      await longTerm.close();
    }
  });
});
