import { afterEach, describe, expect, it } from "vitest";
import { eventBus } from "../../src/events/index.js";
import { TaskEvaluationError } from "../../src/memory/errors.js";
import { evaluateTask } from "../../src/memory/evaluateTask.js";
import { FakeLLM } from "../../src/testing/index.js";

const task = { taskDescription: "Research the market for e-bikes", expectedOutput: "A one-page summary", output: "E-bikes sold 5M units.", agentRole: "Researcher" };
afterEach(() => eventBus.clear());

describe("evaluateTask", () => {
  it("asks once, with the task, expected and actual output, and parses the JSON answer", async () => {
    const llm = new FakeLLM([
      JSON.stringify({
        quality: 7.5,
        suggestions: ["Add sources", "  "],
        entities: [{ name: "VanMoof", type: "company", description: "E-bike maker", relationships: ["competes with Cowboy"] }, { name: "Cowboy" }],
      }),
    ]);
    const started: unknown[] = [];
    eventBus.on("llm_call_started", (event) => {
      started.push(event);
    });
    const evaluation = await evaluateTask({ llm, ...task, source: { agentRole: "Researcher", taskId: "t-1" } });
    expect(evaluation).toEqual({
      quality: 7.5,
      suggestions: ["Add sources"],
      entities: [
        { name: "VanMoof", type: "company", description: "E-bike maker", relationships: ["competes with Cowboy"] },
        { name: "Cowboy", type: "entity", description: "", relationships: [] },
      ],
    });
    expect(llm.calls).toHaveLength(1);
    const prompt = llm.calls[0]?.messages.at(-1)?.content ?? "";
    for (const text of ["Research the market for e-bikes", "A one-page summary", "E-bikes sold 5M units.", "Researcher", '"quality"', '"entities"']) expect(prompt).toContain(text);
    expect(started).toEqual([expect.objectContaining({ agentRole: "Researcher", taskId: "t-1", model: "fake/fake-llm" })]);
  });

  it("reads JSON inside fences and prose, repairs small breakage and clamps quality to 0..10", async () => {
    const fenced = new FakeLLM(['Here is my review:\n```json\n{"quality": "12", "suggestions": ["Be brief",],}\n```\nThanks']);
    expect(await evaluateTask({ llm: fenced, ...task })).toEqual({ quality: 10, suggestions: ["Be brief"], entities: [] });
  });

  it("throws a TaskEvaluationError with the raw answer when there is no evaluation JSON", async () => {
    const error: unknown = await evaluateTask({ llm: new FakeLLM(["I think it went fine, good job!"]), ...task }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskEvaluationError);
    expect((error as TaskEvaluationError).rawOutput).toBe("I think it went fine, good job!");
    expect((error as Error).message).toMatch(/not the expected JSON/);
    const nothingValid = await evaluateTask({ llm: new FakeLLM(['{"quality": "great", "entities": [{"type": "person"}]}']), ...task }).catch((e: unknown) => e);
    expect(nothingValid).toBeInstanceOf(TaskEvaluationError);
    expect((nothingValid as Error).message).toMatch(/quality: .*entities\[0\]\.name/);
  });

  it("keeps every valid part of a partial reply and names what it left out", async () => {
    const entity = { name: "VanMoof", type: "company", description: "E-bike maker", relationships: [] };
    const entitiesOnly = await evaluateTask({ llm: new FakeLLM([JSON.stringify({ entities: [entity] })]), ...task });
    expect(entitiesOnly).toEqual({ suggestions: [], entities: [entity], problems: ["quality: missing"] });

    const qualityOnly = await evaluateTask({ llm: new FakeLLM(['{"quality": 6}']), ...task });
    expect(qualityOnly).toEqual({ quality: 6, suggestions: [], entities: [] });

    const mixed = await evaluateTask({
      llm: new FakeLLM([JSON.stringify({ quality: null, suggestions: ["Cite sources", 42, ""], entities: [entity, { name: "" }, "Cowboy", { name: "Cowboy" }] })]),
      ...task,
    });
    expect(mixed.quality).toBeUndefined();
    expect(mixed.suggestions).toEqual(["Cite sources"]);
    expect(mixed.entities.map((e) => e.name)).toEqual(["VanMoof", "Cowboy"]);
    expect(mixed.problems).toEqual([
      "quality: must be a number from 0 to 10, got null",
      "suggestions[1]: must be a string, got 42",
      "entities[1].name: must be a non-empty string",
      'entities[2]: must be an object { name, type, description, relationships }, got "Cowboy"',
    ]);
  });
});
