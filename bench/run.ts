// Benchmarks of crewts's own overhead, each reported next to a baseline measured in the same run.
// `npm run bench` (short) or `npm run bench -- --full`.
import { z } from "zod";
import { Agent, tool } from "../src/index.js";
import { FakeLLM } from "../src/testing/index.js";

const full = process.argv.includes("--full");
const rounds = full ? 15 : 7;
const perRound = full ? 2_000 : 500;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}
function spread(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  return `${s[0]!.toFixed(1)}–${s.at(-1)!.toFixed(1)}`;
}

async function timeIt(fn: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < perRound; i++) await fn();
  return ((performance.now() - t0) * 1000) / perRound; // microseconds per operation
}

const multiplier = tool({
  name: "multiplier",
  description: "Multiplies two numbers",
  schema: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => a * b,
});
const script = ['Thought: use the tool\nAction: multiplier\nAction Input: {"a": 6, "b": 7}', "Thought: done\nFinal Answer: 42"];
const responder = (_m: unknown, i: number) => script[i % 2]!;

// Baseline: the two bare FakeLLM calls an agent run needs, without any agent around them.
const bareLLM = new FakeLLM(responder);
const baseline = async () => {
  await bareLLM.call([{ role: "user", content: "6*7" }]);
  await bareLLM.call([{ role: "user", content: "6*7" }]);
};
const agentLLM = new FakeLLM(responder);
const agent = new Agent({ role: "Mathematician", goal: "Compute", backstory: "Careful", llm: agentLLM, tools: [multiplier] });
const agentRun = async () => {
  await agent.kickoff("What is 6 times 7?");
};

await timeIt(baseline);
await timeIt(agentRun); // warm-up
const base: number[] = [];
const ours: number[] = [];
for (let r = 0; r < rounds; r++) {
  base.push(await timeIt(baseline));
  ours.push(await timeIt(agentRun));
}
const overhead = median(ours) - median(base);
console.log(`agent kickoff with one tool call (2 LLM calls), ${rounds} rounds x ${perRound} runs, Node ${process.version}`);
console.log(`  baseline (2 bare FakeLLM calls): median ${median(base).toFixed(1)} µs  [${spread(base)}]`);
console.log(`  crewts agent run:                 median ${median(ours).toFixed(1)} µs  [${spread(ours)}]`);
console.log(`  orchestration overhead per run: ${overhead.toFixed(1)} µs (ratio ${(median(ours) / median(base)).toFixed(1)}x the bare calls)`);
