import { performance } from "node:perf_hooks";
import { eventBus } from "../events/EventBus.js";
import type { MemoryEventSource, Memory, MemoryItem, MemoryType } from "./types.js";

/** What `buildMemoryContext` searches. */
export interface MemoryContextInput {
  /** What to remember things about: usually the task description. */
  query: string;
  short?: Memory;
  long?: Memory;
  entity?: Memory;
  external?: Memory;
  /** Items per memory (default 3). */
  limit?: number;
  /** Most tokens the context may take (about 4 characters each; default 1000). */
  tokenBudget?: number;
  source?: MemoryEventSource;
  signal?: AbortSignal;
}

/** Default token budget of the memory context. */
export const DEFAULT_MEMORY_TOKEN_BUDGET = 1000;
const CHARS_PER_TOKEN = 4;
// A truncated item shorter than this says nothing useful: it is left out instead.
const MIN_TRUNCATED_CHARS = 40;

/** CrewAI's heading of each memory's section, in the order sections appear. */
export const MEMORY_SECTION_HEADINGS: Record<MemoryType, string> = {
  short: "Recent Insights:",
  long: "Historical Data:",
  entity: "Entities:",
  external: "External memories:",
};

const ORDER: MemoryType[] = ["short", "long", "entity", "external"];

/**
 * The memory context of a task (CrewAI's ContextualMemory): each memory searched with `query`, its
 * items listed under its heading as "- content". Highest-scored items are kept first within the token
 * budget. A memory that fails to search is left out (memory_query_failed says why). "" when nothing is found.
 */
export async function buildMemoryContext(input: MemoryContextInput): Promise<string> {
  const memories = ORDER.flatMap((kind) => (input[kind] ? [{ kind, memory: input[kind] }] : []));
  const source = input.source ?? {};
  if (eventBus.hasListeners("memory_retrieval_started")) {
    eventBus.emit("memory_retrieval_started", { ...source, query: input.query, memoryKinds: memories.map((m) => m.kind) });
  }
  const started = performance.now();
  const found = await Promise.all(
    memories.map(async ({ kind, memory }) => {
      try {
        const items = await memory.search(input.query, { limit: input.limit ?? 3, source, ...(input.signal ? { signal: input.signal } : {}) });
        return items.map((item) => ({ kind, item }));
      } catch {
        return [];
      }
    }),
  );
  const { text, count } = renderWithinBudget(found.flat(), (input.tokenBudget ?? DEFAULT_MEMORY_TOKEN_BUDGET) * CHARS_PER_TOKEN);
  if (eventBus.hasListeners("memory_retrieval_completed")) {
    eventBus.emit("memory_retrieval_completed", { ...source, query: input.query, memoryContent: text, itemsCount: count, retrievalTimeMs: Math.round(performance.now() - started) });
  }
  return text;
}

/** Picks items best-score first while they fit in `budget` characters (headings included), then renders them by section. */
export function renderWithinBudget(found: { kind: MemoryType; item: MemoryItem }[], budget: number): { text: string; count: number } {
  const chosen = new Map<MemoryType, { score: number; line: string }[]>();
  let used = 0;
  for (const { kind, item } of [...found].sort((a, b) => b.item.score - a.item.score)) {
    const content = item.content.replace(/\s+/g, " ").trim();
    if (content === "") continue;
    // Sections are separated by a blank line: a new one costs its heading and two line breaks.
    const heading = chosen.has(kind) ? 0 : MEMORY_SECTION_HEADINGS[kind].length + 2;
    let line = `- ${content}`;
    const room = budget - used - heading - 1;
    if (line.length > room) {
      if (room < MIN_TRUNCATED_CHARS) continue;
      line = `${line.slice(0, room - 1)}…`;
    }
    used += heading + line.length + 1;
    const lines = chosen.get(kind) ?? [];
    lines.push({ score: item.score, line });
    chosen.set(kind, lines);
  }
  const sections = ORDER.flatMap((kind) => {
    const lines = chosen.get(kind);
    return lines ? [`${MEMORY_SECTION_HEADINGS[kind]}\n${lines.map((l) => l.line).join("\n")}`] : [];
  });
  return { text: sections.join("\n\n"), count: [...chosen.values()].reduce((n, lines) => n + lines.length, 0) };
}
