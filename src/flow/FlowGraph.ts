import { type CompoundCondition, describeCondition, type FlowCondition } from "./conditions/FlowCondition.js";
import { flowDefinition, flowNameOf } from "./FlowDefinition.js";

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
  // As CrewAI's plot: a label routes into a method only when it alone can trigger it (it is not
  // inside an and(...)); an undeclared router is assumed to emit any such label.
  const direct = new Map(def.methods.map((m) => [m, new Set(m.trigger === undefined ? [] : directTriggers(m.trigger))]));
  const inferredLabels = def.labels.filter((label) => def.methods.some((m) => direct.get(m)!.has(label)));
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
    // A router's possible outputs are unknown at runtime in TypeScript: use its declared `emit`.
    const labels = r.emit ?? inferredLabels;
    for (const label of labels) {
      for (const target of [...(def.listenersByTrigger.get(label) ?? []), ...(def.routersByTrigger.get(label) ?? []), ...(def.startsByTrigger.get(label) ?? [])]) {
        if (direct.get(target)!.has(label)) edges.push({ from: r.name, to: target.name, kind: "router", label });
      }
    }
  }
  return { name: flowNameOf(flowClassOrInstance, def), nodes, edges };
}

/** The names and labels that alone can trigger `condition`: those not inside an `and(...)` (CrewAI's direct OR-level triggers). */
function directTriggers(condition: FlowCondition): string[] {
  if (typeof condition === "string") return [condition];
  if (condition.type === "AND") return [];
  return condition.conditions.flatMap(directTriggers);
}

function* leaves(condition: FlowCondition, parent: CompoundCondition | undefined): Generator<{ name: string; parent: CompoundCondition | undefined }> {
  if (typeof condition === "string") {
    yield { name: condition, parent };
    return;
  }
  for (const sub of condition.conditions) yield* leaves(sub, condition);
}
