import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Agent, Crew, eventBus, Task, type ChatMessage } from "../../src/index.js";
import { FakeLLM } from "../../src/testing/index.js";

const EVALUATION = JSON.stringify({ quality: 6, suggestions: ["Be brief"], entities: [{ name: "Acme", type: "organization", description: "A maker" }] });
const isEvaluation = (messages: ChatMessage[]) => messages.some((m) => m.role === "system" && m.content.includes("You review the work of AI agents"));

const previousStorageDir = process.env.CREWTS_STORAGE_DIR;
afterEach(() => {
  process.env.CREWTS_STORAGE_DIR = previousStorageDir;
  vi.restoreAllMocks();
});

describe("failed memory writes", () => {
  it("print one warning line per memory and cause, naming the file and the fix, however many kickoffs fail alike", async () => {
    // A storage folder under a regular file: every memory write fails the same way.
    const blocker = join(mkdtempSync(join(tmpdir(), "crewts-memory-warnings-")), "a-file");
    writeFileSync(blocker, "");
    process.env.CREWTS_STORAGE_DIR = join(blocker, "storage");
    const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
    let failedSaves = 0;
    const off = eventBus.on("memory_save_failed", () => void failedSaves++);
    const llm = new FakeLLM((messages) => (isEvaluation(messages) ? EVALUATION : "Thought: done\nFinal Answer: Acme makes rockets."));
    try {
      for (let i = 0; i < 5; i++) {
        const agent = new Agent({ role: "Analyst", goal: "Know makers", backstory: "Precise.", llm });
        const output = await new Crew({ agents: [agent], tasks: [new Task({ description: `Describe maker ${i}`, expectedOutput: "One sentence", agent })], memory: true }).kickoff();
        expect(output.raw).toBe("Acme makes rockets.");
      }
    } finally {
      off();
    }

    // Every failed save is an event; the warning comes once per memory and cause.
    expect(failedSaves).toBeGreaterThanOrEqual(15);
    const lines = warn.mock.calls.filter((call) => typeof call[1] === "object" && call[1].code === "CREWTS_MEMORY").map((call) => String(call[0]));
    expect(lines).toHaveLength(3);
    for (const [memory, file] of [
      ["short-term memory", "short_term_memory.db"],
      ["long-term memory", "long_term_memory.db"],
      ["entity memory", "entity_memory.db"],
    ] as const) {
      const line = lines.find((l) => l.includes(`to ${memory} failed`));
      expect(line, lines.join("\n")).toBeDefined();
      expect(line).toContain(join(blocker, "storage", file));
      expect(line).toMatch(/CREWTS_STORAGE_DIR to a writable folder/);
      expect(line).not.toContain("\n");
    }
  });
});
