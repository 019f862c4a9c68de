import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Crew } from "../../src/crew/index.js";
import { FakeLLM } from "../../src/testing/index.js";
import { fakeAgent, final, task } from "./helpers.js";

describe("crew.train and crew.test", () => {
  it("trains a copy of the crew and saves what each agent learned", async () => {
    const dir = await mkdtemp(join(tmpdir(), "crewts-train-"));
    try {
      const a = fakeAgent("Researcher", (messages) =>
        messages.some((m) => m.content.includes("feedback a human gave"))
          ? JSON.stringify({ suggestions: ["Cite sources"], quality: 6, finalSummary: "Cite." })
          : final("facts"),
      );
      const crew = new Crew({ agents: [a.agent], tasks: [task("Research", a.agent)] });
      const filename = join(dir, "trained.json");
      const result = await crew.train({ iterations: 1, filename, feedback: () => "Cite your sources" });
      expect(result.trainedAgents.Researcher?.suggestions).toEqual(["Cite sources"]);
      expect(JSON.parse(await readFile(filename, "utf8"))).toHaveProperty("Researcher");
      expect(crew.tasks[0]!.output).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("scores every task output with evalLLM", async () => {
    const a = fakeAgent("Researcher", () => final("facts"));
    const crew = new Crew({ agents: [a.agent], tasks: [task("Research", a.agent)] });
    const printed: string[] = [];
    const result = await crew.test({ iterations: 2, evalLLM: new FakeLLM(() => '{"quality": 8}'), print: (text) => void printed.push(text) });
    expect(result.iterations.map((run) => run.taskScores)).toEqual([[8], [8]]);
    expect(printed).toHaveLength(1);
  });

  it("trains and tests a crew made with stream: true on its outputs, not on a stream", async () => {
    const dir = await mkdtemp(join(tmpdir(), "crewts-train-"));
    try {
      const a = fakeAgent("Researcher", (messages) =>
        messages.some((m) => m.content.includes("feedback a human gave"))
          ? JSON.stringify({ suggestions: ["Cite sources"], quality: 6, finalSummary: "Cite." })
          : final("facts"),
      );
      const crew = new Crew({ agents: [a.agent], tasks: [task("Research", a.agent)], stream: true });
      const trained = await crew.train({ iterations: 1, filename: join(dir, "trained.json"), feedback: () => "Cite your sources" });
      expect(trained.trainedAgents.Researcher?.suggestions).toEqual(["Cite sources"]);
      const scored = await crew.test({ iterations: 1, evalLLM: new FakeLLM(() => '{"quality": 7}'), print: () => {} });
      expect(scored.iterations.map((run) => run.taskScores)).toEqual([[7]]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
