import { findBackEdges } from "./findBackEdges.js";

/** The part of a flow graph the layering needs. */
export interface LayerableGraph {
  nodes: readonly { id: string; kind: string; conditionalStart?: boolean }[];
  edges: readonly { from: string; to: string }[];
}

/** A place in the layered drawing: its row (0 = top) and its rank within the row. */
export interface LayerSlot {
  layer: number;
  order: number;
}

/** A layered placement of a flow graph, ready to be turned into coordinates. */
export interface FlowLayers {
  /** The slot of every method. */
  nodes: Map<string, LayerSlot>;
  /** For an edge spanning several rows (by index), the slots it passes through, from source to target. */
  waypoints: Map<number, LayerSlot[]>;
  /** Indices of the edges that close a loop (a router leading back), drawn against the flow direction. */
  backEdges: Set<number>;
}

/** Barycenter passes over the rows; a handful settles the small graphs flows make. */
const ORDERING_PASSES = 6;

/**
 * Layers a flow graph (a small Sugiyama layout, as CrewAI's plot levels its methods): unconditional
 * starts on row 0, every other method one row below the lowest method that triggers it, so AND/OR
 * joins sit under all their inputs; loops are ignored for the rows. A method nothing triggers ahead
 * of it (a conditional start, reached from a router) sits just above the methods it triggers.
 * Edges spanning rows get a waypoint per row, so they are routed around methods, and rows are
 * ordered by the average rank of their neighbours to cut crossings.
 */
export function layerFlowGraph(graph: LayerableGraph): FlowLayers {
  const backEdges = findBackEdges(graph);
  const ids = graph.nodes.map((n) => n.id);
  const parents = new Map<string, string[]>(ids.map((id) => [id, []]));
  const children = new Map<string, string[]>(ids.map((id) => [id, []]));
  graph.edges.forEach((edge, i) => {
    if (backEdges.has(i)) return;
    parents.get(edge.to)?.push(edge.from);
    children.get(edge.from)?.push(edge.to);
  });

  const layer = longestPathLayers(ids, parents, children);
  for (const node of graph.nodes) {
    const below = children.get(node.id) ?? [];
    if ((parents.get(node.id)?.length ?? 0) > 0 || below.length === 0) continue;
    if (node.kind === "start" && node.conditionalStart !== true) continue;
    layer.set(node.id, Math.min(...below.map((c) => layer.get(c) ?? 1)) - 1);
  }

  // Expand every edge into a chain through one virtual slot per row it crosses (upwards for loops).
  const rows: string[][] = [];
  const place = (id: string, row: number): void => void (rows[row] ??= []).push(id);
  for (const id of ids) place(id, layer.get(id) ?? 0);
  const up = new Map<string, string[]>();
  const down = new Map<string, string[]>();
  const link = (a: string, b: string): void => {
    down.set(a, [...(down.get(a) ?? []), b]);
    up.set(b, [...(up.get(b) ?? []), a]);
  };
  const chains = new Map<number, string[]>();
  graph.edges.forEach((edge, i) => {
    const from = layer.get(edge.from) ?? 0;
    const to = layer.get(edge.to) ?? 0;
    if (from === to) return;
    const [top, bottom, topRow, bottomRow] = from < to ? [edge.from, edge.to, from, to] : [edge.to, edge.from, to, from];
    const chain: string[] = [];
    for (let row = topRow + 1; row < bottomRow; row++) {
      const key = `\u0000${i}:${row}`;
      chain.push(key);
      place(key, row);
    }
    const path = [top, ...chain, bottom];
    for (let k = 1; k < path.length; k++) link(path[k - 1] ?? top, path[k] ?? bottom);
    chains.set(i, from < to ? chain : chain.reverse());
  });

  const filled = rows.filter((row) => row !== undefined);
  orderRows(filled, up, down);
  const slot = new Map<string, LayerSlot>();
  filled.forEach((row, i) => row.forEach((id, order) => slot.set(id, { layer: i, order })));
  const pick = (keys: string[]): LayerSlot[] => keys.map((k) => slot.get(k) ?? { layer: 0, order: 0 });
  return {
    nodes: new Map(ids.map((id) => [id, slot.get(id) ?? { layer: 0, order: 0 }])),
    waypoints: new Map([...chains].filter(([, chain]) => chain.length > 0).map(([i, chain]) => [i, pick(chain)])),
    backEdges,
  };
}

/** Row of each node: 0 for nodes without parents, else one below its lowest parent (Kahn's order; the graph is acyclic). */
function longestPathLayers(ids: string[], parents: Map<string, string[]>, children: Map<string, string[]>): Map<string, number> {
  const layer = new Map<string, number>();
  const waiting = new Map(ids.map((id) => [id, parents.get(id)?.length ?? 0]));
  const queue = ids.filter((id) => waiting.get(id) === 0);
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    layer.set(id, Math.max(-1, ...(parents.get(id) ?? []).map((p) => layer.get(p) ?? 0)) + 1);
    for (const child of children.get(id) ?? []) {
      const left = (waiting.get(child) ?? 1) - 1;
      waiting.set(child, left);
      if (left === 0) queue.push(child);
    }
  }
  return layer;
}

/** Sorts each row (no holes) in place by the mean relative rank of its neighbours, sweeping up then down. */
function orderRows(rows: string[][], up: Map<string, string[]>, down: Map<string, string[]>): void {
  const rank = new Map<string, number>();
  const setRanks = (row: string[]): void => row.forEach((id, i) => rank.set(id, (i + 0.5) / row.length));
  const sortRow = (row: string[], neighbours: Map<string, string[]>): void => {
    const key = new Map<string, number>();
    for (const id of row) {
      const ranks = (neighbours.get(id) ?? []).map((n) => rank.get(n) ?? 0);
      key.set(id, ranks.length === 0 ? (rank.get(id) ?? 0) : ranks.reduce((a, b) => a + b, 0) / ranks.length);
    }
    row.sort((a, b) => (key.get(a) ?? 0) - (key.get(b) ?? 0));
    setRanks(row);
  };
  rows.forEach(setRanks);
  for (let pass = 0; pass < ORDERING_PASSES; pass++) {
    for (const row of rows.slice(0, -1).reverse()) sortRow(row, down);
    for (const row of rows.slice(1)) sortRow(row, up);
  }
}
