// Type tests: what users get from the types alone. vitest runs these (the runtime checks are real
// kickoffs) and `npm run typecheck` checks the expectTypeOf lines.
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { Agent, Crew, Flow, listen, start, Task, type AgentGuardrail, type AgentOptions, type AgentOutput, type CrewOutput } from "../../src/index.js";
import { FakeLLM } from "../../src/testing/index.js";

const Brief = z.object({ title: z.string(), points: z.array(z.string()) });

function crewParts(answers: string[]) {
  const agent = new Agent({ role: "Writer", goal: "Write", backstory: "Clear.", llm: new FakeLLM(answers) });
  const research = new Task({ description: "Research", expectedOutput: "Notes", agent });
  const brief = new Task({ description: "Brief", expectedOutput: "A brief", agent, outputSchema: Brief });
  return { agent, research, brief };
}

describe("typed results", () => {
  it("crew.kickoff() is typed by the last task's outputSchema", async () => {
    const { agent, research, brief } = crewParts(["notes", '{"title": "T", "points": ["a"]}']);
    const crew = new Crew({ agents: [agent], tasks: [research, brief] });
    expectTypeOf(crew).toEqualTypeOf<Crew<z.infer<typeof Brief>>>();
    const output = await crew.kickoff();
    expectTypeOf(output).toEqualTypeOf<CrewOutput<{ title: string; points: string[] }>>();
    expectTypeOf(output.parsed).toEqualTypeOf<{ title: string; points: string[] } | undefined>();
    expect(output.parsed?.title).toBe("T");
  });

  it("a crew whose last task has no schema, or whose tasks are an array, parses into unknown", () => {
    const { agent, research, brief } = crewParts([]);
    const lastUntyped = new Crew({ agents: [agent], tasks: [brief, research] });
    expectTypeOf(lastUntyped).toEqualTypeOf<Crew<unknown>>();
    expectTypeOf<Awaited<ReturnType<Crew<unknown>["kickoff"]>>>().toEqualTypeOf<CrewOutput<unknown>>();
    const tasks: Task[] = [research, brief];
    const fromArray = new Crew({ agents: [agent], tasks });
    expectTypeOf(fromArray).toEqualTypeOf<Crew<unknown>>();
  });

  it("flow.kickoff() resolves to the result type the flow declares", async () => {
    class Review extends Flow<{ score: number }, "published" | "rejected"> {
      override initialState = { score: 9 };
      @start() draft() {
        return this.state.score;
      }
      @listen("draft") decide(): "published" | "rejected" {
        return this.state.score > 5 ? "published" : "rejected";
      }
    }
    const result = await new Review().kickoff();
    expectTypeOf(result).toEqualTypeOf<"published" | "rejected">();
    expect(result).toBe("published");

    class Untyped extends Flow {
      @start() only() {
        return 1;
      }
    }
    expectTypeOf<Awaited<ReturnType<Untyped["kickoff"]>>>().toBeUnknown();
  });

  it("Agent's guardrail checks the AgentOutput of a kickoff", () => {
    expectTypeOf<AgentOptions["guardrail"]>().toEqualTypeOf<AgentGuardrail | undefined>();
    expectTypeOf<Parameters<Exclude<AgentGuardrail, string>>[0]>().toEqualTypeOf<AgentOutput>();
  });
});
