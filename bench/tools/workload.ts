// One scenario's crewts workload in a loop, to profile it:
//   CREWTS_STORAGE_DIR=$(mktemp -d) node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/tools/workload.ts <name> [count]
// then summarize with bench/tools/cpuprofileSummary.ts. Names: chain, chain-sqlite, loop, loop-sqlite,
// fanout, crew, crew-memory, foreach, foreach-memory.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQLiteFlowPersistence } from "../../src/index.js";
import { crewtsCrew, finalAnswerLLM } from "../scenarios/crew.js";
import { chainFlow, fanOutFlow, loopFlow } from "../scenarios/flowClasses.js";
import { Agent, Crew, InMemoryTaskOutputStore, Task } from "../../src/index.js";

const [name = "chain", countArg] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), "crewts-workload-"));
process.env.CREWTS_STORAGE_DIR ??= dir;
const sqlite = new SQLiteFlowPersistence(join(dir, "flow.db"));

const flows = {
  chain: () => chainFlow(1000, false),
  "chain-sqlite": () => chainFlow(1000, true),
  loop: () => loopFlow(1000, false),
  "loop-sqlite": () => loopFlow(1000, true),
  fanout: () => fanOutFlow(100, false),
} as const;

async function forEach(inMemory: boolean): Promise<void> {
  const agent = new Agent({ role: "Writer", goal: "Write about {topic}", backstory: "Quick", llm: finalAnswerLLM(20) });
  const task = new Task({ description: "Write about {topic}", expectedOutput: "a line", agent });
  const crew = new Crew({ agents: [agent], tasks: [task], ...(inMemory ? { taskOutputStore: new InMemoryTaskOutputStore() } : {}) });
  await crew.kickoffForEach(Array.from({ length: 1000 }, (_, i) => ({ topic: `topic ${i}` })), { concurrency: 50 });
}

const t0 = performance.now();
let runs = 0;
if (name in flows) {
  const FlowClass = flows[name as keyof typeof flows]();
  const count = Number(countArg ?? (name.endsWith("sqlite") ? 5 : 500));
  for (; runs < count; runs++) await new FlowClass(name.endsWith("sqlite") ? { persistence: sqlite } : {}).kickoff();
} else if (name === "crew" || name === "crew-memory") {
  const count = Number(countArg ?? (name === "crew" ? 20 : 500));
  for (; runs < count; runs++) await crewtsCrew(finalAnswerLLM(), 20, name === "crew-memory").kickoff();
} else if (name === "foreach" || name === "foreach-memory") {
  const count = Number(countArg ?? 3);
  for (; runs < count; runs++) await forEach(name === "foreach-memory");
} else {
  throw new Error(`unknown workload ${name}`);
}
await sqlite.close();
const cpu = process.cpuUsage();
console.log(`${name}: ${runs} runs, ${((performance.now() - t0) / runs).toFixed(2)} ms per run; process CPU user+system ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms`);
