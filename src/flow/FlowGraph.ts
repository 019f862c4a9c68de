import { type CompoundCondition, describeCondition, type FlowCondition } from "./conditions/FlowCondition.js";
import { flowDefinition } from "./FlowDefinition.js";

/** A method of a flow as drawn in a plot. */
export interface FlowGraphNode {
  id: string;
  kind: "start" | "listen" | "router";
  /** `@start(label)`: an entry point that also runs when its label fires. */
  conditionalStart?: boolean;
}

/** A trigger relation: `from` finishing (or routing to `label`) may run `to`. */
export interface FlowGraphEdge {
  from: string;
  to: string;
  /** `listen`: a plain `@listen("from")`; `and`/`or`: `from` is one branch of a combination; `router`: `from` routes to `to` via `label`. */
  kind: "listen" | "and" | "or" | "router";
  /** The router label, or the whole condition text of an and/or edge. */
  label?: string;
}

/** A static description of a flow class's methods and triggers, what `flow.plot()` draws. */
export interface FlowGraph {
  name: string;
  nodes: FlowGraphNode[];
  edges: FlowGraphEdge[];
}

/** Describes a flow class (or a flow instance's class) as nodes and edges, without running it. */
export function flowGraph(flowClassOrInstance: (abstract new (...args: never[]) => unknown) | object): FlowGraph {
  const def = flowDefinition(flowClassOrInstance);
  const nodes: FlowGraphNode[] = def.methods.map((m) => ({
    id: m.name,
    kind: m.isRouter ? "router" : m.isStart ? "start" : "listen",
    ...(m.isConditionalStart && { conditionalStart: true }),
  }));
  const edges: FlowGraphEdge[] = [];
  const labelSet = new Set(def.labels);
  for (const m of def.methods) {
    if (m.trigger === undefined) continue;
    for (const { name, parent } of leaves(m.trigger, undefined)) {
      if (!def.byName.has(name)) continue;
      if (parent === undefined) edges.push({ from: name, to: m.name, kind: "listen" });
      else edges.push({ from: name, to: m.name, kind: parent.type === "AND" ? "and" : "or", label: describeCondition(m.trigger) });
    }
  }
  for (const r of def.methods) {
    if (!r.isRouter) continue;
    // A router's possible outputs are unknown at runtime in TypeScript: use its declared `emit`,
    // else assume it may emit any label some listener waits for.
    const labels = r.emit ?? [...labelSet];
    for (const label of labels) {
      for (const target of [...(def.listenersByTrigger.get(label) ?? []), ...(def.routersByTrigger.get(label) ?? []), ...(def.startsByTrigger.get(label) ?? [])]) {
        edges.push({ from: r.name, to: target.name, kind: "router", label });
      }
    }
  }
  return { name: def.name, nodes, edges };
}

function* leaves(condition: FlowCondition, parent: CompoundCondition | undefined): Generator<{ name: string; parent: CompoundCondition | undefined }> {
  if (typeof condition === "string") {
    yield { name: condition, parent };
    return;
  }
  for (const sub of condition.conditions) yield* leaves(sub, condition);
}
