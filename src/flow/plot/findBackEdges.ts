/** A directed graph whose nodes have a kind (flow methods: `start` nodes are entry points). */
export interface DirectedGraph {
  nodes: readonly { id: string; kind: string }[];
  edges: readonly { from: string; to: string }[];
}

/**
 * Indices of the edges that close a cycle (router loops), so the layered layout can run on the
 * remaining acyclic graph with start methods on top. Edges into a start method always count as
 * back edges: a start is an entry point, and a router that re-triggers it loops back to the top.
 */
export function findBackEdges(graph: DirectedGraph): Set<number> {
  const isStart = new Set(graph.nodes.filter((n) => n.kind === "start").map((n) => n.id));
  const back = new Set<number>();
  const outgoing = new Map<string, { to: string; index: number }[]>();
  graph.edges.forEach((edge, index) => {
    if (isStart.has(edge.to)) {
      back.add(index);
      return;
    }
    const list = outgoing.get(edge.from) ?? [];
    list.push({ to: edge.to, index });
    outgoing.set(edge.from, list);
  });

  // Iterative depth-first search (flows can be deep; no recursion limit): an edge to a node still
  // on the stack closes a cycle. Starts are searched first so their descendants layer below them.
  const state = new Map<string, "open" | "done">();
  const order = [...graph.nodes.filter((n) => isStart.has(n.id)), ...graph.nodes.filter((n) => !isStart.has(n.id))];
  for (const root of order) {
    if (state.has(root.id)) continue;
    state.set(root.id, "open");
    const stack: { id: string; next: number }[] = [{ id: root.id, next: 0 }];
    for (let frame = stack.at(-1); frame !== undefined; frame = stack.at(-1)) {
      const out = outgoing.get(frame.id) ?? [];
      const edge = out[frame.next];
      if (edge === undefined) {
        state.set(frame.id, "done");
        stack.pop();
        continue;
      }
      frame.next += 1;
      const seen = state.get(edge.to);
      if (seen === "open") back.add(edge.index);
      else if (seen === undefined) {
        state.set(edge.to, "open");
        stack.push({ id: edge.to, next: 0 });
      }
    }
  }
  return back;
}
