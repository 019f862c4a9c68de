// The agent loop: one agent kickoff with one tool call (two LLM calls), against the two bare FakeLLM
// calls it needs, so the difference is crewts's own work around the model (prompting, parsing, tools).
import { z } from "zod";
import { Agent, tool } from "../../src/index.js";
import { FakeLLM } from "../../src/testing/index.js";
import { sampling, type BenchConfig } from "../lib/config.js";
import { pairRows, samplesTable, type ScenarioReport } from "../lib/report.js";
import { compare } from "../lib/runner.js";

const multiplier = tool({
  name: "multiplier",
  description: "Multiplies two numbers",
  schema: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => a * b,
});
const script = ['Thought: use the tool\nAction: multiplier\nAction Input: {"a": 6, "b": 7}', "Thought: done\nFinal Answer: 42"];
const responder = (_m: unknown, i: number) => script[i % 2]!;

/** Runs the agent scenario. */
export async function agentScenarios(config: BenchConfig): Promise<ScenarioReport> {
  let answer = "";
  const measured = await compare(
    [
      {
        name: "crewts",
        run: async () => {
          // A new model per run: FakeLLM records every call, which would otherwise grow without end.
          const agent = new Agent({ role: "Mathematician", goal: "Compute", backstory: "Careful", llm: new FakeLLM(responder), tools: [multiplier] });
          answer = (await agent.kickoff("What is 6 times 7?")).raw;
        },
        verify: () => (answer === "42" ? undefined : `answered ${JSON.stringify(answer)}`),
      },
      {
        name: "2 bare FakeLLM calls",
        run: async () => {
          const llm = new FakeLLM(responder);
          await llm.call([{ role: "user", content: "6*7" }]);
          await llm.call([{ role: "user", content: "6*7" }]);
        },
      },
    ],
    sampling(config),
  );
  return {
    group: "agent",
    rows: pairRows("agent", "agent kickoff with one tool call (2 LLM calls)", "per run", measured, undefined, { peers: ["2 bare FakeLLM calls"] }),
    details: [samplesTable("agent kickoff with one tool call", measured, "per run")],
  };
}
