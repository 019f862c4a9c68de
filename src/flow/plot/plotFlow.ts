import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import type { FlowGraph } from "../FlowGraph.js";
import { FlowPlotError } from "./FlowPlotError.js";
import { layerFlowGraph } from "./layerFlowGraph.js";
import { type PlotPayload, renderPlotHtml } from "./template.js";

/** The browser build of the graph library that every plot inlines (read at plot time, never at import). */
const LIBRARY_FILE = "cytoscape/dist/cytoscape.min.js";

/**
 * Writes a standalone interactive HTML drawing of a flow graph (no network needed to view it) and
 * resolves with its absolute path. The file is written before this returns (plotting is a one-off
 * developer action, not a hot path), so `flow.plot("x")` works without `await`; failures reject.
 */
export function plotFlow(graph: FlowGraph, filename = "crewts_flow.html"): Promise<string> {
  // The executor runs synchronously, and what it throws becomes the rejection.
  return new Promise((resolve) => resolve(writeFlowPlot(graph, filename)));
}

function writeFlowPlot(graph: FlowGraph, filename: string): string {
  const payload = toPayload(graph);
  const path = resolve(filename.toLowerCase().endsWith(".html") ? filename : `${filename}.html`);
  assertDirectory(dirname(path), path);
  writeFileSync(path, renderPlotHtml(payload, readLibrary()), "utf8");
  return path;
}

/** Validates the graph and prepares what the page draws; throws FlowPlotError on an inconsistent graph. */
function toPayload(graph: FlowGraph): PlotPayload {
  const ids = new Set<string>();
  for (const node of graph.nodes) {
    if (ids.has(node.id)) throw new FlowPlotError(`Cannot plot flow "${graph.name}": method "${node.id}" appears twice in its graph. Each method must be one node.`);
    ids.add(node.id);
  }
  for (const edge of graph.edges) {
    for (const end of [edge.from, edge.to]) {
      if (!ids.has(end)) {
        throw new FlowPlotError(`Cannot plot flow "${graph.name}": the edge ${edge.from} -> ${edge.to} names "${end}", which is not a method of the flow.`);
      }
    }
  }
  const { nodes, waypoints, backEdges } = layerFlowGraph(graph);
  return {
    title: graph.name,
    nodes: graph.nodes.map((n) => ({
      id: n.id,
      kind: n.kind,
      conditionalStart: n.conditionalStart === true,
      layer: nodes.get(n.id)?.layer ?? 0,
      order: nodes.get(n.id)?.order ?? 0,
    })),
    edges: graph.edges.map((e, i) => ({
      id: `e${i}`,
      source: e.from,
      target: e.to,
      kind: e.kind,
      label: e.label ?? "",
      loop: backEdges.has(i),
      waypoints: waypoints.get(i) ?? [],
    })),
  };
}

function assertDirectory(dir: string, path: string): void {
  const info = statSync(dir, { throwIfNoEntry: false });
  if (info === undefined) throw new FlowPlotError(`Cannot write the flow plot to ${path}: the directory ${dir} does not exist. Create it first or pass another filename.`);
  if (!info.isDirectory()) throw new FlowPlotError(`Cannot write the flow plot to ${path}: ${dir} is not a directory. Pass a filename inside an existing directory.`);
}

function readLibrary(): string {
  // The published package ships the file in dist/vendor/, next to the bundle (scripts/vendorGraphLibrary.ts);
  // from source, the cytoscape devDependency provides it.
  const vendored = new URL("./vendor/cytoscape.min.js", import.meta.url);
  if (existsSync(vendored)) return readFileSync(vendored, "utf8");
  let file: string;
  try {
    file = createRequire(import.meta.url).resolve(LIBRARY_FILE);
  } catch (error) {
    throw new FlowPlotError(`Cannot plot the flow: the graph library ${LIBRARY_FILE} was not found (${(error as Error).message}). Reinstall crewts's dependencies (npm install).`);
  }
  return readFileSync(file, "utf8");
}
