// A `crewts worker` process for the queue throughput scenario: a 3-task crew whose model takes
// LLM_LATENCY_MS. Prints "ready" once it takes jobs; SIGTERM stops it.
import { Agent, Crew, crewController, eventBus, InMemoryTaskOutputStore, startWorker, Task } from "../../src/index.js";
import { FakeLLM } from "../../src/testing/index.js";

const llm = new FakeLLM(() => "done", { latencyMs: Number(process.env.LLM_LATENCY_MS ?? 0), record: false });
const crew = (): Crew => {
  const agent = new Agent({ role: "Writer", goal: "Write about {topic}", backstory: "Brief.", llm });
  const tasks = ["Outline {topic}", "Draft {topic}", "Polish {topic}"].map((description) => new Task({ description, expectedOutput: "Text", agent }));
  return new Crew({ agents: [agent], tasks, taskOutputStore: new InMemoryTaskOutputStore() });
};
const worker = await startWorker({ controller: crewController(crew, eventBus), queue: process.env.QUEUE ?? "bench", concurrency: Number(process.env.CONCURRENCY ?? 10),
  // Checkpoints as served kickoffs write them by default, in the bench's scratch folder.
  ...(process.env.CHECKPOINT_DIR ? { checkpoint: { location: process.env.CHECKPOINT_DIR } } : {}),
});
process.stdout.write("ready\n");
process.once("SIGTERM", () => void worker.close(5_000).then(() => process.exit(0)));
