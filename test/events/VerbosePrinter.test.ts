import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { Crew } from "../../src/crew/index.js";
import { Flow, listen, router, start } from "../../src/flow/index.js";
import { eventBus, VerbosePrinter, verboseDefaults, type VerboseStream } from "../../src/events/index.js";
import { stripControls, supportsColor, wrapLine } from "../../src/events/terminalText.js";
import { Task } from "../../src/task/index.js";
import { FakeLLM, type FakeLLMOptions } from "../../src/testing/index.js";
import { tool } from "../../src/tools/index.js";

/** A writable stream that keeps what was written. */
class FakeStream implements VerboseStream {
  readonly chunks: string[] = [];
  constructor(
    readonly isTTY = false,
    readonly columns?: number,
  ) {}
  write(chunk: string): boolean {
    this.chunks.push(chunk);
    return true;
  }
  get text(): string {
    return this.chunks.join("");
  }
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/;

const lookup = tool({ name: "lookup", description: "Looks things up", schema: z.object({ q: z.string() }), execute: ({ q }) => `result for ${q}` });

function researchCrew(options: { verbose?: boolean; agentVerbose?: boolean; outputLogFile?: string; llm?: FakeLLMOptions } = {}): Crew {
  const llm = new FakeLLM(
    [
      'Thought: I should look up cats\nAction: lookup\nAction Input: {"q": "cats"}',
      "Thought: I now know the final answer\nFinal Answer: Cats sleep a lot.",
    ],
    options.llm,
  );
  const agent = new Agent({ role: "Cat Researcher", goal: "Know cats", backstory: "Loves cats.", llm, tools: [lookup], verbose: options.agentVerbose ?? false });
  return new Crew({
    agents: [agent],
    tasks: [new Task({ description: "Research {topic}", expectedOutput: "Facts", agent, name: "research" })],
    ...(options.verbose !== undefined ? { verbose: options.verbose } : {}),
    ...(options.outputLogFile !== undefined ? { outputLogFile: options.outputLogFile } : {}),
  });
}

/** Asserts that `parts` occur in `text` in this order. */
function expectInOrder(text: string, parts: string[]): void {
  let at = 0;
  for (const part of parts) {
    const found = text.indexOf(part, at);
    expect(found, `"${part}" after position ${at}`).toBeGreaterThanOrEqual(0);
    at = found + part.length;
  }
}

let stream: FakeStream;
beforeEach(() => {
  // The test runner may force colour; each test decides.
  vi.stubEnv("FORCE_COLOR", undefined);
  vi.stubEnv("NO_COLOR", undefined);
  stream = new FakeStream();
  verboseDefaults.stream = stream;
});
afterEach(() => {
  delete verboseDefaults.stream;
  verboseDefaults.spinnerDelayMs = 1000;
  vi.unstubAllEnvs();
  eventBus.clear();
});

describe("verbose crew output", () => {
  it("tells the run in order, in plain text when the stream is not a terminal", async () => {
    await researchCrew({ verbose: true }).kickoff({ topic: "cats" });
    const text = stream.text;
    expect(text).not.toMatch(ANSI);
    expectInOrder(text, [
      "┌ Crew started: crew",
      'Inputs: {"topic":"cats"}',
      "├ Task started: research",
      "Agent: Cat Researcher",
      "├ Agent started: Cat Researcher",
      "Task: Research cats",
      "├ Thought: I should look up cats",
      'Tool: lookup {"q": "cats"} → result for cats (',
      "Final answer",
      "Answer: Cats sleep a lot.",
      "├ Task completed: research (",
      "└ Crew completed: crew (",
      "Tokens: ",
      "in 2 requests",
    ]);
    // A tree: each level one guide deeper (crew, task, agent, step).
    expect(text).toMatch(/^│ │ │ ├ Thought: I should look up cats$/m);
    expect(text).toMatch(/^│ │ │ │ Tool: lookup/m);
    expect(VerbosePrinter.active()).toEqual([]);
  });

  it("prints nothing for a crew that is not verbose", async () => {
    await researchCrew().kickoff({ topic: "cats" });
    expect(stream.text).toBe("");
  });

  it("prints a verbose agent inside a verbose crew once", async () => {
    await researchCrew({ verbose: true, agentVerbose: true }).kickoff({ topic: "cats" });
    expect(stream.text.split("Tool: lookup")).toHaveLength(2);
    expect(stream.text.split("Final answer")).toHaveLength(2);
  });

  it("colours the output on a terminal, and NO_COLOR turns the colour off", async () => {
    stream = new FakeStream(true, 80);
    verboseDefaults.stream = stream;
    await researchCrew({ verbose: true }).kickoff({ topic: "cats" });
    expect(stream.text).toMatch(ANSI);
    expect(stream.text).toContain("Cat Researcher");

    vi.stubEnv("NO_COLOR", "1");
    expect(supportsColor(new FakeStream(true))).toBe(false);
    vi.stubEnv("NO_COLOR", undefined);
    vi.stubEnv("FORCE_COLOR", "0");
    expect(supportsColor(new FakeStream(true))).toBe(false);
    // A file or a pipe never gets escape codes.
    vi.stubEnv("FORCE_COLOR", "1");
    expect(supportsColor(new FakeStream(false))).toBe(false);
  });

  it("shows a progress line during a slow LLM call on a terminal and clears its timer afterwards", async () => {
    stream = new FakeStream(true, 80);
    verboseDefaults.stream = stream;
    verboseDefaults.spinnerDelayMs = 0;
    let seen: VerbosePrinter | undefined;
    let spinningDuringCall = false;
    // Subscribed before the printer, so this sees the call still in flight.
    eventBus.on("llm_call_completed", () => {
      seen = VerbosePrinter.active()[0];
      spinningDuringCall ||= seen?.spinning ?? false;
    });
    await researchCrew({ verbose: true, llm: { latencyMs: 120 } }).kickoff({ topic: "cats" });
    expect(spinningDuringCall).toBe(true);
    expect(stream.text).toContain("Cat Researcher is thinking");
    expect(seen?.spinning).toBe(false);
    expect(VerbosePrinter.active()).toEqual([]);
  });

  it("never starts a progress timer when the output is piped", async () => {
    verboseDefaults.spinnerDelayMs = 0;
    let spun = false;
    eventBus.on("llm_call_completed", () => {
      spun ||= VerbosePrinter.active().some((p) => p.spinning);
    });
    await researchCrew({ verbose: true, llm: { latencyMs: 20 } }).kickoff({ topic: "cats" });
    expect(spun).toBe(false);
    expect(stream.text).not.toContain("is thinking");
  });
});

describe("verbose details", () => {
  it("prints a failed tool call once, however often it was tried, and says 1 request", async () => {
    const broken = tool({ name: "broken", description: "Fails", schema: z.object({}), execute: () => { throw new Error("disk on fire"); } });
    const llm = new FakeLLM(["Thought: try it\nAction: broken\nAction Input: {}", "Thought: give up\nFinal Answer: could not"]);
    const agent = new Agent({ role: "Tester", goal: "Test", backstory: "Tests.", llm, tools: [broken] });
    await new Crew({ agents: [agent], tasks: [new Task({ description: "Try the tool", expectedOutput: "A result", agent })], verbose: true }).kickoff();
    expect(stream.text.split("disk on fire")).toHaveLength(2);
    expect(stream.text).toMatch(/Tool failed: broken \{\} → disk on fire/);

    stream.chunks.length = 0;
    const once = new Agent({ role: "Solo", goal: "Answer", backstory: "Quick.", llm: new FakeLLM(["Final Answer: done"]) });
    await new Crew({ agents: [once], tasks: [new Task({ description: "Answer", expectedOutput: "Done", agent: once })], verbose: true }).kickoff();
    expect(stream.text).toMatch(/ in 1 request$/m);
  });

  it("names a task without a name by the start of its description, never by its id", async () => {
    const agent = new Agent({ role: "Solo", goal: "Answer", backstory: "Quick.", llm: new FakeLLM(["Final Answer: done"]) });
    const task = new Task({ description: "Write a very long description of everything that matters about the {topic} in detail", expectedOutput: "Done", agent });
    await new Crew({ agents: [agent], tasks: [task], verbose: true }).kickoff({ topic: "sea" });
    expect(stream.text).toContain("Task started: Write a very long description of everything that matters…");
    expect(stream.text).toMatch(/Task completed: Write a very long description .*…\s\(\d+(ms|\.\ds)\)/);
    expect(stream.text).not.toContain(task.id);
  });

  it("prints a verbose flow's methods, router outcomes and timings", async () => {
    class Review extends Flow<{ score: number }, string> {
      override verbose = true;
      override initialState = { score: 7 };
      @start() draft() {
        return "draft";
      }
      @router("draft") grade() {
        return this.state.score > 5 ? "approved" : "rejected";
      }
      @listen("approved") publish() {
        return "published";
      }
      @listen("rejected") shelve() {
        return "shelved";
      }
    }
    await new Review().kickoff();
    expectInOrder(stream.text, [
      "┌ Flow started: Review",
      "├ Method started: draft",
      "├ Method finished: draft (",
      "├ Router grade → approved (",
      "├ Method finished: publish (",
      "└ Flow finished: Review (",
      "Result: published",
    ]);
    expect(stream.text).not.toContain("shelve");
    expect(stream.text).not.toMatch(ANSI);

    stream.chunks.length = 0;
    await new Review({ verbose: false }).kickoff();
    expect(stream.text).toBe("");
  });
});

describe("verbose hierarchical crew", () => {
  it("shows delegated work once, though it carries no crew id and the manager is verbose too", async () => {
    const writerLLM = new FakeLLM(["Thought: easy\nFinal Answer: Waves fold on the shore"]);
    const writer = new Agent({ role: "Senior Writer", goal: "Write", backstory: "Writes.", llm: writerLLM, verbose: true });
    const managerLLM = new FakeLLM([
      'Thought: delegate\nAction: Delegate work to coworker\nAction Input: {"task": "Write a haiku", "context": "calm sea", "coworker": "Senior Writer"}',
      "Thought: done\nFinal Answer: The team wrote: Waves fold on the shore",
    ]);
    const task = new Task({ description: "Get a haiku written", expectedOutput: "A haiku" });
    await new Crew({ agents: [writer], tasks: [task], process: "hierarchical", managerLLM, verbose: true }).kickoff();
    const text = stream.text;
    expectInOrder(text, ["Agent: Crew Manager", "Agent started: Senior Writer", "Task: Write a haiku", "Answer: Waves fold on the shore", "Tool: Delegate work to coworker", "Answer: The team wrote"]);
    expect(text.split("Answer: Waves fold on the shore")).toHaveLength(2);
  });
});

describe("verbose agent output", () => {
  it("prints a verbose agent of a quiet crew, its own part only", async () => {
    await researchCrew({ agentVerbose: true }).kickoff({ topic: "cats" });
    expect(stream.text).not.toContain("Crew started");
    expectInOrder(stream.text, ["Agent started: Cat Researcher", "Tool: lookup", "Final answer"]);
  });

  it("prints a verbose agent's standalone kickoff", async () => {
    const llm = new FakeLLM(["Thought: easy\nFinal Answer: 42"]);
    const agent = new Agent({ role: "Oracle", goal: "Answer", backstory: "Knows all.", llm, verbose: true });
    await agent.kickoff("What is the answer?");
    expectInOrder(stream.text, ["Agent started: Oracle", "Task: What is the answer?", "Thought: easy", "Final answer", "Answer: 42"]);
    expect(VerbosePrinter.active()).toEqual([]);
  });

  it("shortens long tool results and tool errors on screen", async () => {
    const long = tool({ name: "dump", description: "Dumps", schema: z.object({}), execute: () => "x".repeat(5000) });
    const llm = new FakeLLM(["Thought: dump\nAction: dump\nAction Input: {}", "Thought: done\nFinal Answer: ok"]);
    const agent = new Agent({ role: "Dumper", goal: "Dump", backstory: "Dumps.", llm, tools: [long], verbose: true });
    await agent.kickoff("Dump it");
    expect(stream.text).toContain("more characters)");
    expect(stream.text).not.toContain("x".repeat(2000));
  });
});

describe("output log file", () => {
  it("writes one JSON line per printed event, plus the task's line, for a verbose crew", async () => {
    const dir = await mkdtemp(join(tmpdir(), "crewts-verbose-"));
    try {
      const path = join(dir, "run.jsonl");
      await researchCrew({ verbose: true, outputLogFile: path }).kickoff({ topic: "cats" });
      const lines = (await readFile(path, "utf8")).trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines.map((l) => l.type)).toEqual([
        "crew_kickoff_started",
        "task_started",
        "agent_execution_started",
        "agent_logs_execution",
        "agent_logs_execution",
        "agent_execution_completed",
        "task_completed",
        "crew_kickoff_completed",
      ]);
      for (const line of lines) {
        expect(typeof line.content).toBe("string");
        expect(Number.isNaN(Date.parse(String(line.timestamp)))).toBe(false);
      }
      const toolLine = lines[3]!;
      expect(toolLine).toMatchObject({ agent: "Cat Researcher", task: "research", title: "Thought: I should look up cats" });
      expect(toolLine.content).toContain("Tool: lookup");
      expect(toolLine.content).toContain("Output: result for cats");
      expect(lines[6]).toMatchObject({ taskName: "research", task: "Research cats", agent: "Cat Researcher", status: "completed", output: "Cats sleep a lot." });
      expect(toolLine.content).toContain('Input: {"q": "cats"}');
      // The same records the screen shows.
      expect(stream.text).toContain('Tool: lookup {"q": "cats"} → result for cats');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("text from models, tools and inputs", () => {
  // What a web page could steer a model into writing: retitle the terminal, clear it, overwrite a line.
  const hostile = tool({
    name: "fetch_page",
    description: "Fetches a page",
    schema: z.object({ url: z.string() }),
    execute: () => "\x1b]0;owned\x07Page \x1b[2J\x1b[31mtext\x1b[0m\rend\x1bc\x9b2J\x00",
  });

  it("reaches neither the screen nor the log file with its escape sequences and control characters, and no colour is added off a terminal", async () => {
    vi.stubEnv("FORCE_COLOR", "1");
    const dir = await mkdtemp(join(tmpdir(), "crewts-verbose-"));
    try {
      const path = join(dir, "run.jsonl");
      const llm = new FakeLLM([
        'Thought: read \x1b]0;pwned\x07it\nAction: fetch_page\nAction Input: {"url": "https://example.com"}',
        "Thought: done\nFinal Answer: Cats \x1b[2Jsleep\r a lot.\x1b]0;pwned\x07",
      ]);
      const agent = new Agent({ role: "Reader\x1b[5m", goal: "Read", backstory: "Reads.", llm, tools: [hostile] });
      const task = new Task({ description: "Summarize {topic}", expectedOutput: "A summary", agent });
      const crew = new Crew({ agents: [agent], tasks: [task], verbose: true, outputLogFile: path });
      const output = await crew.kickoff({ topic: "ca\x1b[1mts" });

      const log = await readFile(path, "utf8");
      for (const text of [stream.text, log]) {
        // eslint-disable-next-line no-control-regex
        expect(text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
        expect(text).not.toMatch(/\\u00[01]|\\r|\\u007f|\\u00[89]/);
        expect(text).not.toContain("pwned");
        expect(text).not.toContain("owned");
      }
      expectInOrder(stream.text, ["Inputs: {", "Agent: Reader", "Task: Summarize cats", "Thought: read it", "Tool: fetch_page", "→ Page text end", "Answer: Cats sleep a lot."]);
      expect(log).toContain("Cats sleep a lot.");
      // The answer itself is the model's, unchanged: only what is printed is cleaned.
      expect(output.raw).toBe("Cats \x1b[2Jsleep\r a lot.\x1b]0;pwned\x07");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("keeps our own colours on a terminal", async () => {
    stream = new FakeStream(true, 200);
    verboseDefaults.stream = stream;
    const llm = new FakeLLM(["Thought: done\nFinal Answer: \x1b[31mred\x1b[0m and \x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\"]);
    await new Agent({ role: "Oracle", goal: "Answer", backstory: "Knows.", llm, verbose: true }).kickoff("Say it");
    expect(stream.text).toMatch(ANSI);
    expect(stream.text).toContain("Answer:\x1b[22m red and link");
    expect(stream.text).not.toContain("\x1b[31mred");
    expect(stream.text).not.toContain("evil.example");
  });
});

describe("stripControls", () => {
  it("removes CSI, OSC and other ESC sequences, C0 and C1 controls and lone carriage returns, and keeps newlines, tabs and text", () => {
    expect(stripControls("a\x1b[1;31mb\x1b[0m c")).toBe("ab c");
    expect(stripControls("x\x1b]0;title\x07y\x1b]0;t2\x1b\\z")).toBe("xyz");
    expect(stripControls("p\x1bPq\x1b\\r\x1b_apc\x9cs")).toBe("prs");
    expect(stripControls("reset\x1bc!\x1b(B")).toBe("reset!");
    expect(stripControls("c1\x9b2Jcsi\x9d0;t\x07osc\x85")).toBe("c1csiosc");
    expect(stripControls("line 1\r\nline 2\r\tok\x07\x08\x00\x7f")).toBe("line 1\nline 2\tok");
    expect(stripControls("open \x1b]0;never ends")).toBe("open 0;never ends");
    const clean = "Plain text, ünïcode ✓, emoji 🐈";
    expect(stripControls(clean)).toBe(clean);
  });
});

describe("wrapLine", () => {
  it("breaks at spaces and splits words longer than the width", () => {
    expect(wrapLine("aaa bbb ccc ddd", 10)).toEqual(["aaa bbb", "ccc ddd"]);
    expect(wrapLine("a".repeat(25), 10)).toEqual(["a".repeat(10), "a".repeat(10), "a".repeat(5)]);
  });
});
