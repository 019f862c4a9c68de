import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Agent } from "../../src/agent/Agent.js";
import {
  loadTrainedAgents,
  trainCrew,
  TrainingError,
  trainedInstructionsFor,
  type TrainedAgentsData,
  type TrainableCrew,
} from "../../src/crew/training.js";
import type { ChatMessage } from "../../src/llm/types.js";
import { Task } from "../../src/task/Task.js";
import type { TaskOutput } from "../../src/task/TaskOutput.js";
import { FakeLLM } from "../../src/testing/index.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "crewts-training-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const isEvaluation = (messages: ChatMessage[]) => messages.some((m) => m.content.includes("feedback a human gave"));
const evaluation = (suggestions: string[], quality = 7, finalSummary = "Be concise.") => JSON.stringify({ suggestions, quality, finalSummary });

/** A model for one agent: answers tasks with numbered outputs, and training evaluations with `evaluationAnswer`. */
function agentLLM(name: string, evaluationAnswer: string) {
  let run = 0;
  return new FakeLLM((messages) => (isEvaluation(messages) ? evaluationAnswer : `Thought: done\nFinal Answer: ${name} output ${++run}`));
}

/** The smallest crew training can run: tasks in order, each given the earlier outputs. */
class MiniCrew implements TrainableCrew {
  kickoffs = 0;
  constructor(
    readonly agents: Agent[],
    readonly tasks: Task[],
  ) {}

  async kickoff(): Promise<{ tasksOutput: TaskOutput[] }> {
    this.kickoffs++;
    const tasksOutput: TaskOutput[] = [];
    for (const task of this.tasks) tasksOutput.push(await task.executeSync({ context: tasksOutput.map((o) => o.raw).join("\n") }));
    return { tasksOutput };
  }

  copy(): MiniCrew {
    const agents = this.agents.map((a) => a.copy());
    const byRole = new Map(this.agents.map((a, i) => [a, agents[i]!]));
    const tasks = this.tasks.map((t) => new Task({ description: t.description, expectedOutput: t.expectedOutput, agent: byRole.get(t.agent!)! }));
    const copied = new MiniCrew(agents, tasks);
    this.copies.push(copied);
    return copied;
  }

  readonly copies: MiniCrew[] = [];
}

function makeCrew(researcherLLM: FakeLLM, writerLLM: FakeLLM) {
  const researcher = new Agent({ role: "Researcher", goal: "Find facts", backstory: "Curious.", llm: researcherLLM, allowDelegation: true });
  const writer = new Agent({ role: "Writer", goal: "Write posts", backstory: "Precise.", llm: writerLLM });
  return new MiniCrew(
    [researcher, writer],
    [
      new Task({ description: "Research AI agents", expectedOutput: "Five facts", agent: researcher }),
      new Task({ description: "Write a post about AI agents", expectedOutput: "A short post", agent: writer }),
    ],
  );
}

describe("trainCrew", () => {
  it("runs the crew, collects feedback per output, evaluates per agent and saves the JSON file", async () => {
    const researcherLLM = agentLLM("research", evaluation(["Cite a source for every fact.", "  ", "Prefer 2024 sources."], 6));
    const writerLLM = agentLLM("writing", evaluation(["Open with a hook."], 42, "Start strong."));
    const crew = makeCrew(researcherLLM, writerLLM);
    const filename = join(dir, "nested", "trained.json");
    const feedback = vi.fn((outputs: TaskOutput[], { iteration }: { iteration: number }) => outputs.map((o) => `iteration ${iteration + 1}: improve ${o.agent}`));

    const result = await trainCrew(crew, { iterations: 2, filename, inputs: { topic: "AI" }, feedback });

    expect(feedback).toHaveBeenCalledTimes(2);
    expect(feedback.mock.calls[0]![0].map((o) => o.raw)).toEqual(["research output 1", "writing output 1"]);
    // Training runs on a copy with delegation turned off; the crew itself is untouched.
    expect(crew.kickoffs).toBe(0);
    expect(crew.copies).toHaveLength(1);
    expect(crew.copies[0]!.kickoffs).toBe(2);
    expect(crew.copies[0]!.agents[0]!.allowDelegation).toBe(false);
    expect(crew.agents[0]!.allowDelegation).toBe(true);

    expect(result.filename).toBe(filename);
    expect(result.trainingData.Researcher).toEqual([
      { iteration: 0, taskId: crew.copies[0]!.tasks[0]!.id, task: "Research AI agents", expectedOutput: "Five facts", initialOutput: "research output 1", humanFeedback: "iteration 1: improve Researcher" },
      { iteration: 1, taskId: crew.copies[0]!.tasks[0]!.id, task: "Research AI agents", expectedOutput: "Five facts", initialOutput: "research output 2", humanFeedback: "iteration 2: improve Researcher" },
    ]);
    expect(result.trainingData.Writer).toHaveLength(2);
    expect(result.usage.successfulRequests).toBe(2);

    const saved = JSON.parse(await readFile(filename, "utf8")) as TrainedAgentsData;
    expect(saved).toEqual({
      Researcher: { suggestions: ["Cite a source for every fact.", "Prefer 2024 sources."], quality: 6, finalSummary: "Be concise." },
      Writer: { suggestions: ["Open with a hook."], quality: 10, finalSummary: "Start strong." },
    });
    expect(result.trainedAgents).toEqual(saved);

    // The evaluation prompt carries every output with its feedback, and goes to the agent's own LLM.
    const evalCall = researcherLLM.calls.find((c) => isEvaluation(c.messages))!;
    const prompt = evalCall.messages.at(-1)!.content;
    for (const text of ["Researcher", "research output 1", "research output 2", "iteration 2: improve Researcher", "Five facts", "finalSummary"]) {
      expect(prompt).toContain(text);
    }
    expect(writerLLM.calls.filter((c) => isEvaluation(c.messages))).toHaveLength(1);

    const instructions = trainedInstructionsFor(await loadTrainedAgents(filename), "Researcher");
    expect(instructions).toMatch(/instructions/i);
    expect(instructions).toContain(" - Cite a source for every fact.\n - Prefer 2024 sources.");
  });

  it("applies one feedback text to every output and keeps other agents' data in the file", async () => {
    const filename = join(dir, "merge.json");
    await writeFile(filename, JSON.stringify({ Editor: { suggestions: ["Fix typos."], quality: 9, finalSummary: "ok" } }));
    const crew = makeCrew(agentLLM("r", evaluation(["A"])), agentLLM("w", evaluation(["B"])));
    const result = await trainCrew(crew, { iterations: 1, filename, feedback: async () => "Shorter, please." });
    expect(result.trainingData.Researcher![0]!.humanFeedback).toBe("Shorter, please.");
    expect(result.trainingData.Writer![0]!.humanFeedback).toBe("Shorter, please.");
    const saved = await loadTrainedAgents(filename);
    expect(Object.keys(saved!).sort()).toEqual(["Editor", "Researcher", "Writer"]);
    expect(saved!.Editor!.suggestions).toEqual(["Fix typos."]);
  });

  it("asks on the given terminal streams when there is no feedback function", async () => {
    const crew = makeCrew(agentLLM("r", evaluation(["A"])), agentLLM("w", evaluation(["B"])));
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = "";
    output.on("data", (chunk: Buffer) => {
      shown += chunk.toString();
    });
    input.end("more sources\n\n");
    const result = await trainCrew(crew, { iterations: 1, filename: join(dir, "terminal.json"), io: { input, output } });
    expect(result.trainingData.Researcher![0]!.humanFeedback).toBe("more sources");
    expect(result.trainingData.Writer![0]!.humanFeedback).toBe("");
    expect(shown).toContain("r output 1");
    expect(shown).toContain("Your feedback on this output");
  });

  it("fails clearly when the terminal input ends before every output got feedback", async () => {
    const crew = makeCrew(agentLLM("r", evaluation(["A"])), agentLLM("w", evaluation(["B"])));
    const input = new PassThrough();
    input.end("only one answer\n");
    await expect(trainCrew(crew, { iterations: 1, filename: join(dir, "ended.json"), io: { input, output: new PassThrough() } })).rejects.toThrow(
      /input ended before feedback/,
    );
  });

  it("refuses to start without a terminal and without a feedback function", async () => {
    const crew = makeCrew(agentLLM("r", ""), agentLLM("w", ""));
    const tty = [process.stdin.isTTY, process.stdout.isTTY];
    process.stdin.isTTY = false;
    try {
      const error = await trainCrew(crew, { iterations: 1, filename: join(dir, "none.json") }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TrainingError);
      expect((error as Error).message).toMatch(/not a terminal.*feedback/);
    } finally {
      process.stdin.isTTY = tty[0]!;
    }
    expect(crew.copies).toHaveLength(0);
  });

  it.each([
    ["", /must name a JSON file/],
    ["trained.pkl", /must end with \.json/],
    ["trained", /must end with \.json/],
  ])("rejects the filename %j before running anything", async (filename, message) => {
    const crew = makeCrew(agentLLM("r", ""), agentLLM("w", ""));
    await expect(trainCrew(crew, { iterations: 1, filename, feedback: () => "x" })).rejects.toThrow(message);
    expect(crew.copies).toHaveLength(0);
  });

  it("rejects a directory, a file that is not trained data, and bad iterations before running anything", async () => {
    const crew = makeCrew(agentLLM("r", ""), agentLLM("w", ""));
    const folder = join(dir, "folder.json");
    await mkdir(folder, { recursive: true });
    await expect(trainCrew(crew, { iterations: 1, filename: folder, feedback: () => "x" })).rejects.toThrow(/is not a file/);
    const notData = join(dir, "package.json");
    await writeFile(notData, JSON.stringify({ name: "x" }));
    await expect(trainCrew(crew, { iterations: 1, filename: notData, feedback: () => "x" })).rejects.toThrow(/not a trained data file/);
    await writeFile(join(dir, "broken.json"), "{ nope");
    await expect(trainCrew(crew, { iterations: 1, filename: join(dir, "broken.json"), feedback: () => "x" })).rejects.toThrow(/not valid JSON/);
    await expect(trainCrew(crew, { iterations: 0, filename: join(dir, "ok.json"), feedback: () => "x" })).rejects.toThrow(/iterations/);
    expect(crew.copies).toHaveLength(0);
  });

  it("rejects feedback that does not give one text per output", async () => {
    const crew = makeCrew(agentLLM("r", ""), agentLLM("w", ""));
    await expect(trainCrew(crew, { iterations: 1, filename: join(dir, "fb.json"), feedback: () => ["only one"] })).rejects.toThrow(
      /array of 2 strings/,
    );
  });
});

describe("trainedInstructionsFor / loadTrainedAgents", () => {
  const data: TrainedAgentsData = {
    "Senior Researcher": { suggestions: ["Be precise."], quality: 8, finalSummary: "" },
    Silent: { suggestions: [], quality: 5, finalSummary: "" },
  };

  it("finds the role exactly or ignoring case, and gives nothing without suggestions", () => {
    expect(trainedInstructionsFor(data, "Senior Researcher")).toContain(" - Be precise.");
    expect(trainedInstructionsFor(data, "senior researcher ")).toContain(" - Be precise.");
    expect(trainedInstructionsFor(data, "Silent")).toBeUndefined();
    expect(trainedInstructionsFor(data, "Nobody")).toBeUndefined();
    expect(trainedInstructionsFor(undefined, "Senior Researcher")).toBeUndefined();
  });

  it("returns undefined for a missing file", async () => {
    expect(await loadTrainedAgents(join(dir, "missing.json"))).toBeUndefined();
  });

  it("gives agents the instructions in their system prompt", async () => {
    const llm = new FakeLLM(["Thought: ok\nFinal Answer: done"]);
    const agent = new Agent({ role: "Senior Researcher", goal: "g", backstory: "b", llm });
    agent.trainedInstructions = trainedInstructionsFor(data, agent.role);
    await agent.kickoff("Do it");
    expect(llm.calls[0]!.messages[0]!.content).toContain(" - Be precise.");
  });
});
