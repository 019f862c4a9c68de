import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { runInNewContext } from "node:vm";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FlowGraph } from "../../src/flow/FlowGraph.js";
import { FlowPlotError } from "../../src/flow/plot/FlowPlotError.js";
import { layerFlowGraph } from "../../src/flow/plot/layerFlowGraph.js";
import { plotFlow } from "../../src/flow/plot/plotFlow.js";
import { scriptSafe } from "../../src/flow/plot/template.js";
import { pipelineGraph, wideGraph } from "../fixtures/plotGraphs.js";

const CHROMIUM = "/usr/bin/chromium";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "crewts-plot-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const edgeIndex = (graph: FlowGraph, from: string, to: string): number => graph.edges.findIndex((e) => e.from === from && e.to === to);

describe("layerFlowGraph", () => {
  it("puts starts on top, joins under all their inputs, and routes a router loop around the rows", () => {
    const { nodes, waypoints, backEdges } = layerFlowGraph(pipelineGraph);
    const layer = (id: string): number => nodes.get(id)?.layer ?? -1;
    expect(layer("fetch_topic")).toBe(0);
    expect(layer("research")).toBe(1);
    expect(layer("draft")).toBeGreaterThan(Math.max(layer("research"), layer("outline")));
    expect(layer("polish")).toBeGreaterThan(Math.max(layer("draft"), layer("revise")));
    expect(layer("review")).toBeGreaterThan(layer("polish"));
    // The conditional start sits just above what it triggers, and the loop back to it is the only back edge.
    expect(layer("revise")).toBe(layer("polish") - 1);
    expect([...backEdges]).toEqual([edgeIndex(pipelineGraph, "review", "revise")]);
    const loop = waypoints.get(edgeIndex(pipelineGraph, "review", "revise")) ?? [];
    expect(loop.map((w) => w.layer)).toEqual([layer("polish")]);
    // Within a row every slot has its own rank.
    for (const row of new Set([...nodes.values()].map((n) => n.layer))) {
      const orders = [...nodes.values()].filter((n) => n.layer === row).map((n) => n.order);
      expect(new Set(orders).size).toBe(orders.length);
    }
  });

  it("handles self loops and cycles among listeners without hanging", () => {
    const graph: FlowGraph = {
      name: "Cycle",
      nodes: [{ id: "s", kind: "start" }, { id: "a", kind: "listen" }, { id: "b", kind: "router" }],
      edges: [
        { from: "s", to: "a", kind: "listen" },
        { from: "a", to: "b", kind: "listen" },
        { from: "b", to: "a", kind: "router", label: "again" },
        { from: "b", to: "b", kind: "router", label: "self" },
      ],
    };
    const { nodes, backEdges } = layerFlowGraph(graph);
    expect([...backEdges].sort()).toEqual([2, 3]);
    expect([nodes.get("s")?.layer, nodes.get("a")?.layer, nodes.get("b")?.layer]).toEqual([0, 1, 2]);
  });
});

describe("plotFlow file output", () => {
  it("appends .html, returns the absolute path and writes one standalone file", async () => {
    const path = await plotFlow(pipelineGraph, join(dir, "pipeline"));
    expect(path).toBe(join(dir, "pipeline.html"));
    const html = await readFile(path, "utf8");
    expect(html.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(html).toContain("cytoscape");
    // Nothing is loaded from elsewhere: no script/link/img/iframe with a source, no remote URLs in attributes or CSS.
    expect(html).not.toMatch(/<script\b[^>]*\bsrc\s*=/i);
    expect(html).not.toMatch(/<(link|img|iframe|object|embed)\b/i);
    expect(html).not.toMatch(/\b(src|href)\s*=\s*["']?\s*(https?:)?\/\//i);
    expect(html).not.toMatch(/@import|url\(\s*["']?(https?:)?\/\//i);
  });

  it("keeps an .html name and resolves a relative name against the working directory", async () => {
    const previous = process.cwd();
    process.chdir(dir);
    try {
      expect(await plotFlow(pipelineGraph, "Relative.HTML")).toBe(join(dir, "Relative.HTML"));
      expect(await plotFlow(pipelineGraph)).toBe(join(dir, "crewts_flow.html"));
    } finally {
      process.chdir(previous);
    }
  });

  it("says what to do when the directory is missing or is a file", async () => {
    await expect(plotFlow(pipelineGraph, join(dir, "missing", "plot.html"))).rejects.toThrow(FlowPlotError);
    await expect(plotFlow(pipelineGraph, join(dir, "missing", "plot.html"))).rejects.toThrow(/directory .*missing does not exist\. Create it first/);
    await writeFile(join(dir, "afile"), "x");
    await expect(plotFlow(pipelineGraph, join(dir, "afile", "plot"))).rejects.toThrow(/is not a directory/);
  });

  it("rejects a graph with a duplicated method or an edge to an unknown method", async () => {
    const twice: FlowGraph = { name: "F", nodes: [{ id: "a", kind: "start" }, { id: "a", kind: "listen" }], edges: [] };
    await expect(plotFlow(twice, join(dir, "x"))).rejects.toThrow(/"a" appears twice/);
    const dangling: FlowGraph = { name: "F", nodes: [{ id: "a", kind: "start" }], edges: [{ from: "a", to: "b", kind: "listen" }] };
    await expect(plotFlow(dangling, join(dir, "x"))).rejects.toThrow(/names "b", which is not a method/);
  });

  it("inlines script text so that </script> and <!-- cannot end or hide the element", () => {
    const source = 'var s = "</script><!-- </SCRIPT>"; var r = /<\\/script>/; s + r.source';
    const safe = scriptSafe(source);
    expect(safe).not.toMatch(/<\/script|<!--/i);
    expect(runInNewContext(safe)).toBe(runInNewContext(source));
  });
});

interface PlotState {
  nodes: string[];
  edges: { id: string; source: string; target: string; kind: string; label: string }[];
  positions: Record<string, { x: number; y: number }>;
  rendered: boolean;
}

// The page's globals, typed as far as these tests use them (the project compiles without the DOM lib).
interface PageCanvas {
  width: number;
  height: number;
  clientWidth: number;
  getContext(kind: "2d"): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } | null;
}
interface PageNode {
  id(): string;
  renderedBoundingBox(): { x1: number; y1: number; x2: number; y2: number };
  renderedPosition(): { x: number; y: number };
}
interface PageCy {
  zoom(): number;
  zoom(level: number): unknown;
  animated(): boolean;
  container(): { clientWidth: number; clientHeight: number; querySelectorAll(selector: "canvas"): Iterable<PageCanvas> };
  nodes(): { forEach(visit: (node: PageNode) => void): void };
}
interface PageWindow {
  __crewtsFlowPlot?: PlotState & { cy: PageCy };
  __pwned?: number;
  requestAnimationFrame(callback: () => void): number;
}

describe("plotFlow in a real browser", () => {
  // Without Chromium every test below fails (a failing hook would only mark them skipped).
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) return;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    });
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** Opens a plot with every non-file request aborted, and collects console output, page errors and blocked requests. */
  async function open(file: string): Promise<{ page: Page; problems: string[]; blocked: string[]; state: PlotState }> {
    if (browser === undefined) {
      throw new Error(`Chromium is needed to test flow plots but ${CHROMIUM} is missing. Install it with: apt-get update && apt-get install -y chromium (CI does this in .ci/run).`);
    }
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const problems: string[] = [];
    const blocked: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    await page.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith("file://")) return route.continue();
      blocked.push(url);
      return route.abort();
    });
    await page.goto(pathToFileURL(file).href);
    await page.waitForFunction(() => (globalThis as unknown as PageWindow).__crewtsFlowPlot?.rendered === true, undefined, { timeout: 10_000 });
    const state = await page.evaluate(() => {
      const { nodes, edges, positions, rendered } = (globalThis as unknown as PageWindow).__crewtsFlowPlot!;
      return { nodes, edges, positions, rendered };
    });
    return { page, problems, blocked, state };
  }

  /** For each node: is its rendered box inside the graph area, and is there paint on a canvas at its centre? */
  async function drawnNodes(page: Page): Promise<Record<string, { inside: boolean; painted: boolean }>> {
    return page.evaluate(() => {
      const cy = (globalThis as unknown as PageWindow).__crewtsFlowPlot!.cy;
      const container = cy.container();
      const pixels = [...container.querySelectorAll("canvas")].map((canvas) => ({
        canvas,
        data: canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height).data,
      }));
      const result: Record<string, { inside: boolean; painted: boolean }> = {};
      cy.nodes().forEach((node) => {
        const box = node.renderedBoundingBox();
        const inside = box.x1 >= 0 && box.y1 >= 0 && box.x2 <= container.clientWidth && box.y2 <= container.clientHeight;
        const at = node.renderedPosition();
        const painted = pixels.some(({ canvas, data }) => {
          const scale = canvas.width / canvas.clientWidth;
          const index = (Math.round(at.y * scale) * canvas.width + Math.round(at.x * scale)) * 4;
          return (data[index + 3] ?? 0) > 0;
        });
        result[node.id()] = { inside, painted };
      });
      return result;
    });
  }

  for (const graph of [pipelineGraph, wideGraph]) {
    it(`renders every method and trigger of ${graph.name}, offline, with a legend and no errors`, async () => {
      const file = await plotFlow(graph, join(dir, graph.name));
      const { page, problems, blocked, state } = await open(file);
      try {
        expect(state.nodes.sort()).toEqual(graph.nodes.map((n) => n.id).sort());
        expect(state.edges.map((e) => `${e.source}->${e.target}:${e.kind}`).sort()).toEqual(graph.edges.map((e) => `${e.from}->${e.to}:${e.kind}`).sort());
        const routerLabels = state.edges.filter((e) => e.kind === "router").map((e) => e.label).sort();
        expect(routerLabels).toEqual(graph.edges.filter((e) => e.kind === "router").map((e) => e.label).sort());
        expect(state.edges.filter((e) => e.kind === "and").every((e) => e.label === "AND")).toBe(true);
        expect(state.edges.filter((e) => e.kind === "or").every((e) => e.label === "OR")).toBe(true);

        const points = Object.values(state.positions);
        expect(points).toHaveLength(graph.nodes.length);
        expect(points.every((p) => Number.isFinite(p.x) && Number.isFinite(p.y))).toBe(true);
        expect(new Set(points.map((p) => `${Math.round(p.x)},${Math.round(p.y)}`)).size).toBe(points.length);

        await expect(page.title()).resolves.toBe(graph.name);
        expect(await page.locator("h1").textContent()).toBe(graph.name);
        const legend = page.locator("#legend");
        expect(await legend.isVisible()).toBe(true);
        for (const word of ["Start", "Conditional start", "Listener", "Router", "AND", "OR", "Router path"]) {
          expect(await legend.textContent()).toContain(word);
        }

        // Zoomed far out and back: the fit button brings every method into view.
        await page.evaluate(() => {
          (globalThis as unknown as PageWindow).__crewtsFlowPlot!.cy.zoom(0.15);
        });
        await page.click("#fit");
        await page.waitForFunction(() => {
          const cy = (globalThis as unknown as PageWindow).__crewtsFlowPlot!.cy;
          return cy.zoom() > 0.3 && !cy.animated();
        });
        await page.evaluate(() => {
          const page = globalThis as unknown as PageWindow;
          return new Promise<void>((done) => page.requestAnimationFrame(() => page.requestAnimationFrame(done)));
        });

        expect(problems).toEqual([]);
        expect(blocked).toEqual([]);
        const drawn = await drawnNodes(page);
        for (const node of graph.nodes) expect(drawn[node.id], node.id).toEqual({ inside: true, painted: true });
      } finally {
        await page.close();
      }
    });
  }

  it("embeds hostile method and flow names as data, not markup", async () => {
    const evil = "</script><script>window.__pwned = 1</script><!--";
    const graph: FlowGraph = {
      name: `<b>"Quotes" & </title><script>window.__pwned = 2</script>`,
      nodes: [{ id: "start", kind: "start" }, { id: evil, kind: "listen" }, { id: "<img src=x onerror=__pwned=3>", kind: "router" }],
      edges: [
        { from: "start", to: evil, kind: "listen" },
        { from: evil, to: "<img src=x onerror=__pwned=3>", kind: "listen" },
        { from: "<img src=x onerror=__pwned=3>", to: "start", kind: "router", label: "</script>" },
      ],
    };
    const html = await readFile(await plotFlow(graph, join(dir, "hostile")), "utf8");
    expect(html.match(/<\/script/gi)).toHaveLength(3);
    const { page, problems, blocked, state } = await open(join(dir, "hostile.html"));
    try {
      expect(state.nodes.sort()).toEqual(graph.nodes.map((n) => n.id).sort());
      expect(state.edges.find((e) => e.kind === "router")?.label).toBe("</script>");
      await expect(page.title()).resolves.toBe(graph.name);
      expect(await page.evaluate(() => (globalThis as unknown as PageWindow).__pwned)).toBeUndefined();
      expect(problems).toEqual([]);
      expect(blocked).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
