// Memory scenario: what short-term, long-term and entity memory add to each task of a crew when each
// memory already holds 10,000 items (SQLite files in the bench's tmp dir), against the same crew
// without memory. The model answers at once, so the difference is memory's own work per task:
// searching three stores for the prompt's memory section, saving the output, and recording the
// evaluation (its LLM call, parsing, long-term and entity writes), which runs beside the next task.
import { join } from "node:path";
import { Agent, Crew, Task } from "../../src/index.js";
import { EntityMemory } from "../../src/memory/EntityMemory.js";
import { LongTermMemory } from "../../src/memory/LongTermMemory.js";
import { MEMORY_SECTION_HEADINGS } from "../../src/memory/buildMemoryContext.js";
import { ShortTermMemory } from "../../src/memory/ShortTermMemory.js";
import { FakeLLM } from "../../src/testing/index.js";
import { sampling, type BenchConfig } from "../lib/config.js";
import { formatMs, formatRatio } from "../lib/stats.js";
import { pairRows, samplesTable, type ScenarioReport } from "../lib/report.js";
import { compare, type Contender, type Measured } from "../lib/runner.js";

const GROUP = "memory";
const TASKS = 10;
const STORED_ITEMS = 10_000;
// Earlier runs the stored short-term items belong to (a kickoff searches only its own run's items).
const EARLIER_RUNS = 100;
const TOPICS = ["pricing", "churn", "onboarding", "latency", "security", "roadmap", "hiring", "support", "billing", "compliance"];
const COMPANIES = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Stark", "Wayne", "Wonka", "Tyrell"];
const EVALUATION_SYSTEM = "You review the work of AI agents";

/** Text of stored item `i`: a topic and a company, as a real crew's memories of similar work would mention them. */
function itemText(i: number): string {
  const topic = TOPICS[i % TOPICS.length]!;
  const company = COMPANIES[Math.floor(i / TOPICS.length) % COMPANIES.length]!;
  return `Finding ${i}: ${company} reported that ${topic} work in quarter ${i % 4 + 1} needed ${i % 7 + 2} reviews and a written summary of ${topic} risks.`;
}

/** Fills each memory with STORED_ITEMS items and waits until they are written. */
export async function populate(short: ShortTermMemory, long: LongTermMemory, entity: EntityMemory): Promise<void> {
  // Each item carries its run's id, as a crew's kickoff saves it; startRun() is not used, because it would scope the
  // memory to the last earlier run for good and every measured kickoff would then save to and search that run.
  for (let run = 0; run < EARLIER_RUNS; run++) {
    for (let i = run; i < STORED_ITEMS; i += EARLIER_RUNS) void short.save(itemText(i), { agent: "Analyst", taskId: `task-${i % TASKS}`, runId: `earlier-run-${run}` });
    await short.flush();
  }
  for (let i = 0; i < STORED_ITEMS; i++) {
    void long.saveEvaluation({
      taskDescription: `Task ${i % TASKS}: research ${TOPICS[i % TOPICS.length]} for ${COMPANIES[i % COMPANIES.length]} and write part ${i}`,
      agentRole: "Analyst",
      quality: (i % 10) + 1,
      suggestions: [`Quantify the ${TOPICS[i % TOPICS.length]} findings (${i})`],
    });
  }
  await long.flush();
  for (let i = 0; i < STORED_ITEMS; i++) {
    void entity.save({ name: `${COMPANIES[i % COMPANIES.length]} unit ${i}`, type: "organization", description: itemText(i), relationships: [`reports to ${COMPANIES[i % COMPANIES.length]}`] });
  }
  await entity.flush();
}

/** The model: a final answer naming the task, an evaluation (quality, one suggestion, one entity) to a review request. */
export function memoryBenchLLM(): FakeLLM {
  return new FakeLLM(
    (messages) => {
      if (messages[0]?.content.includes(EVALUATION_SYSTEM)) {
        return '{"quality": 8, "suggestions": ["Name the company in the first sentence"], "entities": [{"name": "Acme", "type": "organization", "description": "A customer", "relationships": []}]}';
      }
      // The answer names its task, as a real one would, so later tasks of the kickoff find it in short-term memory.
      const task = messages.map((m) => /Task \d+: [^\n]*/.exec(m.content)?.[0]).find((found) => found !== undefined) ?? "the task";
      return `Thought: I have it\nFinal Answer: Three points on ${task}; Acme's pricing risks come first.`;
    },
    { usage: { promptTokens: 10, completionTokens: 5 } },
  );
}

export function crewOf(llm: FakeLLM, memory: { short: ShortTermMemory; long: LongTermMemory; entity: EntityMemory } | undefined): Crew {
  const agent = new Agent({ role: "Analyst", goal: "Summarise what customers report", backstory: "Careful and quick", llm });
  const tasks = Array.from(
    { length: TASKS },
    (_, i) => new Task({ description: `Task ${i}: research ${TOPICS[i]} for ${COMPANIES[i]} and write part ${i}`, expectedOutput: "a paragraph", agent }),
  );
  return new Crew({
    agents: [agent],
    tasks,
    ...(memory ? { memory: true, shortTermMemory: memory.short, longTermMemory: memory.long, entityMemory: memory.entity } : {}),
  });
}

/** Runs the memory scenario. */
export async function memoryScenarios(config: BenchConfig): Promise<ScenarioReport> {
  const dir = join(config.tmpDir, "memory");
  const memory = {
    short: new ShortTermMemory({ path: join(dir, "short_term_memory.db") }),
    long: new LongTermMemory({ path: join(dir, "long_term_memory.db") }),
    entity: new EntityMemory({ path: join(dir, "entity_memory.db") }),
  };
  const t0 = performance.now();
  await populate(memory.short, memory.long, memory.entity);
  const populateMs = performance.now() - t0;

  const contender = (name: string, withMemory: boolean): Contender => {
    let problem: string | undefined = "not run";
    return {
      name,
      run: async () => {
        const llm = memoryBenchLLM();
        const out = await crewOf(llm, withMemory ? memory : undefined).kickoff();
        const expectedCalls = withMemory ? 2 * TASKS : TASKS;
        const lastTaskPrompt = llm.calls.filter((c) => !c.messages[0]?.content.includes(EVALUATION_SYSTEM)).at(-1)?.messages.map((m) => m.content).join("\n") ?? "";
        const sawMemories = [MEMORY_SECTION_HEADINGS.short, MEMORY_SECTION_HEADINGS.long, MEMORY_SECTION_HEADINGS.entity].every((h) => lastTaskPrompt.includes(h));
        if (out.tasksOutput.length !== TASKS) problem = `${out.tasksOutput.length} tasks ran, expected ${TASKS}`;
        else if (llm.calls.length !== expectedCalls) problem = `${llm.calls.length} LLM calls, expected ${expectedCalls}`;
        else if (withMemory !== sawMemories) problem = withMemory ? "the last task's prompt lacks a memory section" : "a prompt has memories without memory";
        else problem = undefined;
      },
      verify: () => problem,
    };
  };
  const measured = await compare([contender("crewts, memory", true), contender("crewts, no memory", false)], { ...sampling(config), divisor: TASKS });
  const counts = await Promise.all([memory.short.search("pricing risks", { limit: 1 }), memory.long.search("research pricing", { limit: 1 })]);
  await Promise.all([memory.short.close(), memory.long.close(), memory.entity.close()]);
  if (counts.some((found) => found.length === 0)) throw new Error("memory bench: the populated memories return nothing");

  const scenario = `${TASKS} sequential tasks, zero-latency LLM, ${STORED_ITEMS.toLocaleString("en-US")} items in each memory`;
  return {
    group: GROUP,
    rows: pairRows(GROUP, scenario, "per task", measured, undefined, { ours: "crewts, memory", peers: ["crewts, no memory"] }).map((row) => ({
      ...row,
      against: "same crew, no memory",
    })),
    details: [
      `Each memory (short-term, long-term, entity) holds ${STORED_ITEMS.toLocaleString("en-US")} items in its own SQLite file, keyword retrieval (no embedder); ` +
        `short-term items belong to ${EARLIER_RUNS} earlier runs (each measured run adds its own, a few hundred over all samples). Filling them took ${formatMs(populateMs)}. ` +
        "Per task, memory searches all three for the prompt's memory section, saves the output to short-term memory, and records an evaluation " +
        "(one more LLM call, answered at once here; its long-term and entity writes) while the next task runs; kickoff waits for the last one and flushes every write. " +
        `Memory adds ${addedPerTask(measured)} per task.`,
      samplesTable(scenario, measured, "per task"),
    ],
  };
}

/** "1.2 ms (×3.4)": the median time memory adds to a task, and the ratio. */
function addedPerTask(measured: readonly Measured[]): string {
  const [on, off] = [measured[0]?.summary?.median, measured[1]?.summary?.median];
  if (on === undefined || off === undefined) return "n/a";
  return `${formatMs(on - off)} (${formatRatio(on / off)} the time without memory)`;
}
