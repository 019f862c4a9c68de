// Flow scenarios: a chain of methods, a fan-out with an and-join, a router loop; each without
// persistence, with in-memory persistence and with SQLite persistence, crewts against LangGraph.js.
import { join } from "node:path";
import { setMaxListeners } from "node:events";
import { InMemoryFlowPersistence, SQLiteFlowPersistence, type FlowPersistence } from "../../src/index.js";
import { sampling, type BenchConfig } from "../lib/config.js";
import { pairRows, samplesTable, type ScenarioReport } from "../lib/report.js";
import { compare, type Contender } from "../lib/runner.js";
import { chainGraph, fanOutGraph, langGraphRunner, loopGraph, type Checkpointing } from "../peers/langgraph.js";
import { chainFlow, fanOutFlow, loopFlow, type BenchFlow } from "./flowClasses.js";

type Persistence = "none" | "memory" | "sqlite";
const PERSISTENCE_LABEL: Record<Persistence, string> = {
  none: "no persistence",
  memory: "in-memory persistence (crewts InMemoryFlowPersistence / LangGraph MemorySaver)",
  sqlite: "SQLite persistence (crewts SQLiteFlowPersistence / LangGraph SqliteSaver), file on disk",
};

interface Shape {
  key: "chain" | "fanout" | "loop";
  title: string;
  unit: string;
  divisor: number;
  /** The value of `n` a correct run ends with. */
  expectedN: number;
  crewts: (persisted: boolean) => new (options?: { persistence?: FlowPersistence }) => BenchFlow;
  langGraph: () => ReturnType<typeof chainGraph>;
  recursionLimit: number;
  /** The goal on crewts / LangGraph.js, if the issue sets one. */
  maxRatio?: number;
}

/** LangGraph's SQLite checkpointer needs better-sqlite3, a native addon; when it cannot load, the reason is reported. */
async function openLangGraphSqlite(path: string): Promise<{ saver?: Checkpointing & { kind: "sqlite" }; reason?: string }> {
  try {
    const { SqliteSaver } = await import("@langchain/langgraph-checkpoint-sqlite");
    return { saver: { kind: "sqlite", saver: SqliteSaver.fromConnString(path) } };
  } catch (error) {
    return { reason: `@langchain/langgraph-checkpoint-sqlite cannot load: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}` };
  }
}

/** Runs every flow scenario. */
export async function flowScenarios(config: BenchConfig): Promise<ScenarioReport> {
  // LangGraph adds one abort listener per branch to a shared signal; 100 branches trip Node's leak warning.
  setMaxListeners(1_000);
  const steps = config.full ? 1000 : 200;
  const width = 100;
  const shapes: Shape[] = [
    {
      key: "chain",
      title: `chain of ${steps} methods`,
      unit: "per step",
      divisor: steps,
      expectedN: steps,
      crewts: (p) => chainFlow(steps, p),
      langGraph: () => chainGraph(steps),
      recursionLimit: steps + 10,
      maxRatio: 1 / 20,
    },
    {
      key: "fanout",
      title: `fan-out to ${width} concurrent listeners + and-join`,
      unit: "per run",
      divisor: 1,
      expectedN: width,
      crewts: (p) => fanOutFlow(width, p),
      langGraph: () => fanOutGraph(width),
      recursionLimit: 10,
    },
    {
      key: "loop",
      title: `router loop of ${steps} iterations`,
      unit: "per iteration",
      divisor: steps,
      expectedN: steps,
      crewts: (p) => loopFlow(steps, p),
      langGraph: () => loopGraph(steps),
      recursionLimit: steps + 10,
      maxRatio: 1 / 20,
    },
  ];

  const lgSqlite = await openLangGraphSqlite(join(config.tmpDir, "langgraph-checkpoints.db"));
  const crewtsSqlite = new SQLiteFlowPersistence(join(config.tmpDir, "crewts-flow-states.db"));
  const report: ScenarioReport = { group: "flow", rows: [], details: [] };
  try {
    for (const shape of shapes) {
      for (const persistence of ["none", "memory", "sqlite"] as const) {
        const FlowClass = shape.crewts(persistence !== "none");
        let lastN = -1;
        const crewts: Contender = {
          name: "crewts",
          run: async () => {
            const backend = persistence === "memory" ? new InMemoryFlowPersistence() : persistence === "sqlite" ? crewtsSqlite : undefined;
            const flow = new FlowClass(backend ? { persistence: backend } : {});
            await flow.kickoff();
            lastN = flow.state.n;
          },
          verify: () => (lastN === shape.expectedN ? undefined : `ended with n=${lastN}, expected ${shape.expectedN}`),
        };
        let lgN = -1;
        const checkpointing: Checkpointing | undefined = persistence === "none" ? { kind: "none" } : persistence === "memory" ? { kind: "memory" } : lgSqlite.saver;
        const lgRun = checkpointing ? langGraphRunner(shape.langGraph(), checkpointing, shape.recursionLimit) : undefined;
        const langGraph: Contender = lgRun
          ? {
              name: "LangGraph.js",
              run: async () => {
                lgN = (await lgRun()).n;
              },
              verify: () => (lgN === shape.expectedN ? undefined : `ended with n=${lgN}, expected ${shape.expectedN}`),
            }
          : { name: "LangGraph.js", unavailable: lgSqlite.reason ?? "unavailable" };
        const measured = await compare([crewts, langGraph], { ...sampling(config), divisor: shape.divisor });
        const scenario = `${shape.title}, ${persistence === "none" ? "no persistence" : persistence === "memory" ? "in-memory persistence" : "SQLite persistence"}`;
        report.rows.push(...pairRows("flow", scenario, shape.unit, measured, shape.maxRatio));
        report.details.push(samplesTable(`${shape.title} — ${PERSISTENCE_LABEL[persistence]}`, measured, shape.unit));
      }
    }
  } finally {
    await crewtsSqlite.close();
  }
  report.details.unshift(
    "Each crewts run builds a new flow instance and kicks it off; each LangGraph run invokes the graph compiled once, " +
      "on a new thread when checkpointing. crewts persists after every method (`@persist` on the class), so its router loop " +
      "saves twice per iteration (the step and the router) where LangGraph checkpoints once per super-step. In-memory stores " +
      "are fresh per run on both sides; the SQLite files are shared by the runs of a scenario.",
  );
  return report;
}
