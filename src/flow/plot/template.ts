import { browserScript } from "./browserScript.js";

/** What the page draws: the flow's methods and triggers, prepared for cytoscape. */
export interface PlotPayload {
  title: string;
  /** `layer` is the row (0 = start methods), `order` the rank within the row. */
  nodes: { id: string; kind: "start" | "listen" | "router"; conditionalStart: boolean; layer: number; order: number }[];
  /** `loop` marks an edge that closes a cycle (a router looping back); `waypoints` are the row slots a long edge passes through. */
  edges: {
    id: string;
    source: string;
    target: string;
    kind: "listen" | "and" | "or" | "router";
    label: string;
    loop: boolean;
    waypoints: { layer: number; order: number }[];
  }[];
}

/** Colours shared by the CSS legend and the cytoscape style, so the two cannot drift apart. */
export const PLOT_COLORS = {
  start: "#2e7d32",
  conditionalStart: "#e8f5e9",
  listen: "#5c6bc0",
  router: "#ef6c00",
  listenEdge: "#757575",
  andEdge: "#1565c0",
  orEdge: "#8e24aa",
  routerEdge: "#ef6c00",
} as const;

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON that is safe inside a <script> element: no `<` (so no `</script>` or `<!--`), no raw line separators. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/**
 * JavaScript source made safe to inline in a <script> element: `</script` and `<!--` can only occur
 * inside strings, regular expressions, templates or comments of a library, where `\x3C` means `<`.
 */
export function scriptSafe(source: string): string {
  return source.replace(/<(?=\/script|!--)/gi, "\\x3C");
}

const LINE = (color: string, dash: string, width: number): string =>
  `<svg width="46" height="12" aria-hidden="true"><line x1="2" y1="6" x2="36" y2="6" stroke="${color}" stroke-width="${width}" stroke-dasharray="${dash}"/>` +
  `<path d="M36 1 L45 6 L36 11 Z" fill="${color}"/></svg>`;

const c = PLOT_COLORS;
const LEGEND = `<section id="legend" aria-label="Legend">
  <details open>
  <summary>Legend</summary>
  <h2>Methods</h2>
  <ul>
    <li><svg width="46" height="22" aria-hidden="true"><ellipse cx="23" cy="11" rx="21" ry="9" fill="${c.start}"/></svg><span>Start (<code>@start</code>)</span></li>
    <li><svg width="46" height="22" aria-hidden="true"><ellipse cx="23" cy="11" rx="21" ry="9" fill="${c.conditionalStart}" stroke="${c.start}" stroke-width="2" stroke-dasharray="4 2"/></svg><span>Conditional start (<code>@start("label")</code>)</span></li>
    <li><svg width="46" height="22" aria-hidden="true"><rect x="3" y="3" width="40" height="16" rx="4" fill="${c.listen}"/></svg><span>Listener (<code>@listen</code>)</span></li>
    <li><svg width="46" height="22" aria-hidden="true"><path d="M23 1 L44 11 L23 21 L2 11 Z" fill="${c.router}"/></svg><span>Router (<code>@router</code>)</span></li>
  </ul>
  <h2>Triggers</h2>
  <ul>
    <li>${LINE(c.listenEdge, "", 2)}<span>Listens to one method</span></li>
    <li>${LINE(c.andEdge, "", 3)}<span><b style="color:${c.andEdge}">AND</b>: runs after all of them</span></li>
    <li>${LINE(c.orEdge, "6 4", 2)}<span><b style="color:${c.orEdge}">OR</b>: runs after any of them</span></li>
    <li>${LINE(c.routerEdge, "1.5 3.5", 3)}<span>Router path, labelled with the route</span></li>
  </ul>
  </details>
</section>`;

const CSS = `
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #212121; background: #fafafa; }
body { display: flex; flex-direction: column; }
header { display: flex; align-items: center; gap: 12px; padding: 10px 16px; background: #fff; border-bottom: 1px solid #e0e0e0; }
header h1 { margin: 0; font-size: 18px; font-weight: 600; flex: 1; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
header .hint { font-size: 12px; color: #757575; }
button { font: inherit; font-size: 13px; padding: 5px 12px; border: 1px solid #bdbdbd; border-radius: 6px; background: #fff; cursor: pointer; }
button:hover { background: #f5f5f5; }
main { display: flex; flex: 1; min-height: 0; }
#graph { position: relative; flex: 1; min-width: 0; }
#cy { position: absolute; inset: 0; }
#side { flex: none; width: min(330px, 40%); overflow: auto; background: #fff; border-left: 1px solid #e0e0e0; padding: 12px 16px; font-size: 13px; }
#legend h2 { margin: 4px 0 6px; font-size: 12px; text-transform: uppercase; letter-spacing: 0.05em; color: #616161; }
#legend ul { list-style: none; margin: 0 0 6px; padding: 0; }
#legend li { display: flex; align-items: center; gap: 8px; margin: 5px 0; }
#legend code { font-size: 12px; color: #616161; }
#legend summary { cursor: pointer; font-weight: 600; }
#legend details:not([open]) summary { margin: 0; }
#legend summary { margin-bottom: 4px; }
#info { display: none; margin-top: 12px; padding-top: 10px; border-top: 1px solid #e0e0e0; }
#info.open { display: block; }
#info h3 { margin: 0 0 6px; font-size: 14px; word-break: break-all; }
#info p { margin: 3px 0; }
#error { display: none; position: absolute; top: 0; left: 0; right: 0; margin: 16px; padding: 12px; border: 1px solid #c62828; color: #c62828; background: #ffebee; border-radius: 6px; }
`;

/** The whole standalone page: CSS, legend, graph data as JSON, the inlined graph library and the page script. */
export function renderPlotHtml(payload: PlotPayload, libraryJs: string): string {
  const title = escapeHtml(payload.title);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>${title}</title>
<style>${CSS}</style>
</head>
<body>
<header>
  <h1>${title}</h1>
  <span class="hint">Scroll to zoom, drag to pan, click a method for details</span>
  <button id="fit" type="button">Fit to screen</button>
</header>
<main>
  <div id="graph">
    <div id="cy" role="img" aria-label="Flow graph of ${title}"></div>
    <div id="error" role="alert"></div>
  </div>
  <aside id="side">
    ${LEGEND}
    <section id="info" aria-live="polite"></section>
  </aside>
</main>
<script type="application/json" id="crewts-flow-data">${jsonForScript(payload)}</script>
<script>${scriptSafe(libraryJs)}</script>
<script>${scriptSafe(browserScript(PLOT_COLORS))}</script>
</body>
</html>
`;
}
