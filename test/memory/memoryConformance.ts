import { afterEach, describe, expect, it } from "vitest";
import { eventBus } from "../../src/events/index.js";
import type { CrewtsEvent } from "../../src/events/index.js";
import { MEMORY_NAMES, MemoryWriteError } from "../../src/memory/errors.js";
import type { Memory } from "../../src/memory/types.js";

/** How a suite gets memories: `name` picks the storage, so the same name reopens the same data. */
export interface MemoryFactory {
  open(name: string): Promise<Memory>;
  /** A memory whose writes fail (e.g. its database path is under a regular file). */
  failing(): Promise<Memory>;
  /** The value saved for a text (default: the text; entity memory wraps it in an entity). */
  toValue?: (text: string, index: number) => unknown;
}

/**
 * The behaviour every memory must have: queued saves found by the next search, relevance order,
 * limit and scoreThreshold, reset, persistence across instances, and failed writes reported by flush.
 */
export function describeMemory(name: string, factory: MemoryFactory): void {
  describe(`Memory conformance: ${name}`, () => {
    const opened: Memory[] = [];
    let suffix = 0;
    afterEach(async () => {
      eventBus.clear();
      for (const memory of opened.splice(0)) await memory.close().catch(() => undefined);
    });
    const open = async (storage = `m${suffix++}`) => {
      const memory = await factory.open(storage);
      opened.push(memory);
      return memory;
    };
    const value = (text: string, index = 0) => (factory.toValue ? factory.toValue(text, index) : text);
    const saveAll = async (memory: Memory, texts: string[]) => {
      for (const [index, text] of texts.entries()) await memory.save(value(text, index));
    };

    it("finds what was just saved: search waits for the queued write", async () => {
      const memory = await open();
      const before = Date.now();
      await memory.save(value("The quarterly report is due on Friday"), { agentRole: "Writer" });
      const [item] = await memory.search("when is the quarterly report due?");
      expect(item?.content).toContain("quarterly report is due on Friday");
      expect(item?.score).toBeGreaterThan(0);
      expect(item?.score).toBeLessThanOrEqual(1);
      expect(item?.relevance).toBeGreaterThan(0);
      expect(item?.createdAt).toBeGreaterThanOrEqual(before - 1000);
      expect(item?.createdAt).toBeLessThanOrEqual(Date.now() + 1000);
      expect(item?.importance).toBeGreaterThanOrEqual(0);
      expect(typeof item?.id).toBe("string");
    });

    it("ranks the most relevant item first", async () => {
      const memory = await open();
      await saveAll(memory, [
        "Cats are small felines that purr and chase mice",
        "Rust is a systems language focused on memory safety",
        "TypeScript adds static types to JavaScript",
      ]);
      const items = await memory.search("which systems language has memory safety", { scoreThreshold: 0 });
      expect(items[0]?.content).toContain("Rust is a systems language");
      const scores = items.map((i) => i.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
    });

    it("returns at most limit items (default 3)", async () => {
      const memory = await open();
      await saveAll(memory, ["alpha one", "alpha two", "alpha three", "alpha four", "alpha five"]);
      expect(await memory.search("alpha")).toHaveLength(3);
      expect(await memory.search("alpha", { limit: 2 })).toHaveLength(2);
      expect(await memory.search("alpha", { limit: 5 })).toHaveLength(5);
    });

    it("drops items whose relevance is below scoreThreshold", async () => {
      const memory = await open();
      await saveAll(memory, ["apple banana cherry", "apple"]);
      const all = await memory.search("apple banana cherry", { scoreThreshold: 0 });
      expect(all).toHaveLength(2);
      const strict = await memory.search("apple banana cherry", { scoreThreshold: 0.99 });
      expect(strict.map((i) => i.content)).toHaveLength(1);
      expect(strict[0]?.content).toContain("apple banana cherry");
      for (const item of strict) expect(item.relevance).toBeGreaterThanOrEqual(0.99);
    });

    it("forgets everything on reset", async () => {
      const memory = await open();
      await saveAll(memory, ["The deploy key rotates monthly"]);
      expect(await memory.search("deploy key")).toHaveLength(1);
      await memory.reset();
      expect(await memory.search("deploy key")).toEqual([]);
    });

    it("keeps what was saved for a new instance on the same storage", async () => {
      const first = await open("persisted");
      await saveAll(first, ["The staging database lives in Frankfurt"]);
      await first.close();
      const second = await open("persisted");
      const [item] = await second.search("where is the staging database");
      expect(item?.content).toContain("staging database lives in Frankfurt");
    });

    it("emits save and query events with the memory kind", async () => {
      const memory = await open();
      const events: CrewtsEvent[] = [];
      eventBus.onAny((event) => {
        if (event.type.startsWith("memory_")) events.push(event);
      });
      await memory.save(value("Invoices are sent on the first of the month"), { agentRole: "Accountant", taskId: "t1" });
      await memory.flush();
      await memory.search("invoices first month", { limit: 2, source: { agentRole: "Reviewer" } });
      expect(events.map((e) => e.type)).toEqual(["memory_save_started", "memory_save_completed", "memory_query_started", "memory_query_completed"]);
      expect(events[0]).toMatchObject({ memoryKind: memory.kind, agentRole: "Accountant", taskId: "t1", metadata: { agentRole: "Accountant", taskId: "t1" } });
      expect(events[0]?.type === "memory_save_started" && events[0].value).toContain("Invoices are sent");
      expect(events[1]).toMatchObject({ memoryKind: memory.kind, saveTimeMs: expect.any(Number) });
      expect(events[3]).toMatchObject({ memoryKind: memory.kind, agentRole: "Reviewer", limit: 2, scoreThreshold: 0.35, resultsCount: 1, queryTimeMs: expect.any(Number) });
    });

    it("reports a failed deferred write at the next flush, once, naming the memory", async () => {
      const memory = await factory.failing();
      opened.push(memory);
      const failed: CrewtsEvent<"memory_save_failed">[] = [];
      eventBus.on("memory_save_failed", (event) => {
        failed.push(event);
      });
      await expect(memory.save(value("This write cannot land"))).resolves.toBeUndefined();
      const error: unknown = await memory.flush().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MemoryWriteError);
      expect((error as MemoryWriteError).kind).toBe(memory.kind);
      expect((error as MemoryWriteError).failures).toHaveLength(1);
      expect((error as Error).message).toContain(`${MEMORY_NAMES[memory.kind]} failed; the values were not saved`);
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatchObject({ memoryKind: memory.kind, error: expect.any(String) });
      await expect(memory.flush()).resolves.toBeUndefined();
    });
  });
}
