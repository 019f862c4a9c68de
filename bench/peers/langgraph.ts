// LangGraph.js versions of the flow scenarios: the same graphs as StateGraphs, run with no
// checkpointer, its in-memory checkpointer (MemorySaver) or its SQLite checkpointer (SqliteSaver).
import { Annotation, END, MemorySaver, START, StateGraph, type BaseCheckpointSaver } from "@langchain/langgraph";

/** The builder calls the scenarios use, with node names as plain strings (they are generated). */
interface LooseGraph {
  addNode(name: string, fn: (state: BenchState) => Partial<BenchState> | Promise<Partial<BenchState>>): LooseGraph;
  addEdge(from: string | string[], to: string): LooseGraph;
  addConditionalEdges(from: string, route: (state: BenchState) => string): LooseGraph;
  compile(options?: { checkpointer?: BaseCheckpointSaver }): CompiledGraph;
}

/** The compiled graph as the scenarios invoke it. */
export interface CompiledGraph {
  invoke(input: Partial<BenchState>, config: { recursionLimit: number; configurable?: { thread_id: string } }): Promise<BenchState>;
}

/** The state every bench graph carries: a step counter (last write wins) and a fan-in counter (summed). */
export interface BenchState {
  n: number;
  count: number;
}

const State = Annotation.Root({
  n: Annotation<number>({ reducer: (_old: number, next: number) => next, default: () => 0 }),
  count: Annotation<number>({ reducer: (a: number, b: number) => a + b, default: () => 0 }),
});

// StateGraph types node names as literals; the bench generates them, so it uses the graph through LooseGraph.
const builder = (): LooseGraph => {
  const graph: unknown = new StateGraph(State);
  return graph as LooseGraph;
};

/** START -> m0 -> m1 -> ... -> m(N-1) -> END; each node increments `n`. */
export function chainGraph(steps: number): LooseGraph {
  const g = builder();
  for (let i = 0; i < steps; i++) g.addNode(`m${i}`, (s) => ({ n: s.n + 1 }));
  g.addEdge(START, "m0");
  for (let i = 1; i < steps; i++) g.addEdge(`m${i - 1}`, `m${i}`);
  g.addEdge(`m${steps - 1}`, END);
  return g;
}

/** START -> fan -> b0..b(W-1) concurrently -> join (waits for all) -> END; each branch adds 1 to `count` after an await. */
export function fanOutGraph(width: number): LooseGraph {
  const g = builder();
  const branches = Array.from({ length: width }, (_, i) => `b${i}`);
  g.addNode("fan", () => ({}));
  for (const b of branches) {
    g.addNode(b, async () => {
      await Promise.resolve();
      return { count: 1 };
    });
  }
  g.addNode("join", (s) => ({ n: s.count }));
  g.addEdge(START, "fan");
  for (const b of branches) g.addEdge("fan", b);
  g.addEdge(branches, "join");
  g.addEdge("join", END);
  return g;
}

/** START -> step, then a conditional edge (the router) back to step until `n` reaches `iterations`. */
export function loopGraph(iterations: number): LooseGraph {
  const g = builder();
  g.addNode("step", (s) => ({ n: s.n + 1 }));
  g.addEdge(START, "step");
  g.addConditionalEdges("step", (s) => (s.n < iterations ? "step" : END));
  return g;
}

/** Where a LangGraph run keeps its checkpoints. */
export type Checkpointing = { kind: "none" } | { kind: "memory" } | { kind: "sqlite"; saver: BaseCheckpointSaver };

/** A run function for `graph` with the given checkpointing; `recursionLimit` must exceed the super-steps. */
export function langGraphRunner(graph: LooseGraph, checkpointing: Checkpointing, recursionLimit: number): () => Promise<BenchState> {
  if (checkpointing.kind === "none") {
    const app = graph.compile();
    return () => app.invoke({ n: 0 }, { recursionLimit });
  }
  const saver = checkpointing.kind === "memory" ? new MemorySaver() : checkpointing.saver;
  const app = graph.compile({ checkpointer: saver });
  let thread = 0;
  return async () => {
    const threadId = `bench-${process.pid}-${thread++}`;
    const out = await app.invoke({ n: 0 }, { recursionLimit, configurable: { thread_id: threadId } });
    // The in-memory saver keeps every thread forever; dropping it keeps runs comparable (crewts uses a fresh store per run).
    if (checkpointing.kind === "memory") await saver.deleteThread(threadId);
    return out;
  };
}
