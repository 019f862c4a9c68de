/**
 * The page script of a flow plot, as plain ES2017 source. It is a string, not a compiled function,
 * because bundlers and test transforms inject helpers into functions that would not exist in the page.
 */
export function browserScript(colors: Readonly<Record<string, string>>): string {
  return `(function () {
  "use strict";
  var COLORS = ${JSON.stringify(colors)};
  var FONT_FAMILY = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  var FONT_SIZE = 14;
  var ROW_GAP = 90;
  var COLUMN_GAP = 60;
  var WAYPOINT_WIDTH = 24;
  var ALIGN_PASSES = 4;
  var KIND_LABELS = { start: "@start", listen: "@listen", router: "@router" };
  var EDGE_WORDS = { listen: "listens to", and: "AND", or: "OR", router: "router path" };

  function fail(error) {
    var box = document.getElementById("error");
    box.style.display = "block";
    box.textContent = "Could not draw the flow: " + (error && error.message ? error.message : String(error));
    console.error(error);
  }

  function textWidth(ctx, text) {
    return ctx.measureText(text).width;
  }

  function nodeElement(ctx, node) {
    var kindLabel = KIND_LABELS[node.kind] + (node.conditionalStart ? " (conditional)" : "");
    var label = node.id + "\\n" + kindLabel;
    var text = Math.max(textWidth(ctx, node.id), textWidth(ctx, kindLabel));
    var width = node.kind === "router" ? text * 1.5 + 56 : node.kind === "start" ? text * 1.18 + 40 : text + 32;
    var height = node.kind === "router" ? 76 : 54;
    var classes = [node.kind];
    if (node.conditionalStart) classes.push("conditional");
    return { group: "nodes", data: { id: node.id, kind: node.kind, label: label, w: Math.ceil(width), h: height }, classes: classes };
  }

  function edgeElement(edge, layerOf) {
    var label = edge.kind === "and" ? "AND" : edge.kind === "or" ? "OR" : edge.kind === "router" ? edge.label : "";
    var classes = [edge.kind];
    if (edge.loop) classes.push("loop");
    if (edge.source === edge.target) classes.push("self");
    else if (layerOf[edge.source] === layerOf[edge.target]) classes.push("same-row");
    return { group: "edges", data: { id: edge.id, source: edge.source, target: edge.target, kind: edge.kind, label: label, route: edge.label }, classes: classes };
  }

  var STYLE = [
    { selector: "node", style: {
      "label": "data(label)", "text-wrap": "wrap", "text-valign": "center", "text-halign": "center",
      "font-family": FONT_FAMILY, "font-size": FONT_SIZE, "font-weight": 600, "line-height": 1.3, "color": "#fff",
      "width": "data(w)", "height": "data(h)", "border-width": 0 } },
    { selector: "node.start", style: { "shape": "ellipse", "background-color": COLORS.start } },
    { selector: "node.start.conditional", style: { "background-color": COLORS.conditionalStart, "color": COLORS.start,
      "border-width": 2.5, "border-style": "dashed", "border-color": COLORS.start } },
    { selector: "node.listen", style: { "shape": "round-rectangle", "background-color": COLORS.listen } },
    { selector: "node.router", style: { "shape": "diamond", "background-color": COLORS.router } },
    { selector: "node:selected", style: { "overlay-color": "#000", "overlay-opacity": 0.12, "overlay-padding": 6 } },
    { selector: "edge", style: {
      "curve-style": "bezier", "target-arrow-shape": "triangle", "arrow-scale": 1.2, "width": 2,
      "line-color": COLORS.listenEdge, "target-arrow-color": COLORS.listenEdge,
      "label": "data(label)", "font-family": FONT_FAMILY, "font-size": 12, "font-weight": 700,
      "text-background-color": "#fafafa", "text-background-opacity": 1, "text-background-padding": 3,
      "text-background-shape": "round-rectangle", "text-rotation": "none" } },
    { selector: "edge.and", style: { "width": 3, "line-color": COLORS.andEdge, "target-arrow-color": COLORS.andEdge, "color": COLORS.andEdge } },
    { selector: "edge.or", style: { "line-style": "dashed", "line-dash-pattern": [8, 5], "line-color": COLORS.orEdge,
      "target-arrow-color": COLORS.orEdge, "color": COLORS.orEdge } },
    { selector: "edge.router", style: { "width": 3, "line-style": "dotted", "line-color": COLORS.routerEdge,
      "target-arrow-color": COLORS.routerEdge, "color": COLORS.routerEdge } },
    // A self loop (a router routing to itself) goes out to the right of the node, clear of its shape.
    { selector: "edge.self", style: { "loop-direction": "90deg", "loop-sweep": "50deg",
      "control-point-step-size": function (e) { return (e.source().data("w") / 2 + 40) / 1.4; } } },
    { selector: "edge.same-row", style: { "curve-style": "unbundled-bezier", "control-point-distances": [-50], "control-point-weights": [0.5] } },
    { selector: "edge:selected", style: { "overlay-color": "#000", "overlay-opacity": 0.1, "overlay-padding": 4 } }
  ];

  function describe(cy, node) {
    var info = document.getElementById("info");
    info.textContent = "";
    var heading = document.createElement("h3");
    heading.textContent = node.id();
    info.appendChild(heading);
    var kind = node.data("kind");
    var kindLine = document.createElement("p");
    kindLine.textContent = KIND_LABELS[kind] + (node.hasClass("conditional") ? " (conditional: runs when a router returns its label)" : "");
    info.appendChild(kindLine);
    function list(title, edges, end) {
      if (edges.length === 0) return;
      var p = document.createElement("p");
      p.textContent = title + ": " + edges.map(function (e) {
        var word = EDGE_WORDS[e.data("kind")];
        var route = e.data("kind") === "router" ? ' "' + e.data("route") + '"' : "";
        return e.data(end) + " (" + word + route + (e.hasClass("loop") ? ", loops back" : "") + ")";
      }).join(", ");
      info.appendChild(p);
    }
    list("Triggered by", node.incomers("edge").toArray(), "source");
    var condition = node.incomers("edge.and, edge.or").map(function (e) { return e.data("route"); }).filter(Boolean)[0];
    if (condition) {
      var conditionLine = document.createElement("p");
      conditionLine.textContent = "Condition: " + condition;
      info.appendChild(conditionLine);
    }
    list("Triggers", node.outgoers("edge").toArray(), "target");
    info.className = "open";
  }

  // Rows top to bottom by layer; long edges take a thin slot in every row they cross. Each item then
  // moves towards the mean x of its neighbours (sweeping down and up) while keeping its row order and spacing.
  function place(cy, payload) {
    var rows = [];
    var items = {};
    function add(layer, key, item) {
      item.key = key;
      item.layer = layer;
      item.links = [];
      items[key] = item;
      (rows[layer] = rows[layer] || []).push(item);
    }
    payload.nodes.forEach(function (n) {
      var node = cy.getElementById(n.id);
      add(n.layer, "n:" + n.id, { order: n.order, w: node.data("w"), h: node.data("h"), node: n.id });
    });
    payload.edges.forEach(function (e) {
      var chain = ["n:" + e.source];
      e.waypoints.forEach(function (slot, k) {
        add(slot.layer, "w:" + e.id + ":" + k, { order: slot.order, w: WAYPOINT_WIDTH, h: 0, edge: e.id, k: k });
        chain.push("w:" + e.id + ":" + k);
      });
      chain.push("n:" + e.target);
      for (var i = 1; i < chain.length; i++) {
        items[chain[i - 1]].links.push(items[chain[i]]);
        items[chain[i]].links.push(items[chain[i - 1]]);
      }
    });
    rows = rows.filter(Boolean);
    rows.forEach(function (row) {
      row.sort(function (a, b) { return a.order - b.order; });
      var x = 0;
      row.forEach(function (item) { item.x = x + item.w / 2; x += item.w + COLUMN_GAP; });
      row.forEach(function (item) { item.x -= x / 2; });
    });
    function align(row, towardsLayer) {
      var wanted = row.map(function (item) {
        var near = item.links.filter(function (o) { return o.layer === towardsLayer; });
        if (near.length === 0) return item.x;
        return near.reduce(function (sum, o) { return sum + o.x; }, 0) / near.length;
      });
      var right = wanted.slice();
      for (var i = 1; i < row.length; i++) right[i] = Math.max(right[i], right[i - 1] + gap(row, i));
      var left = wanted.slice();
      for (var j = row.length - 2; j >= 0; j--) left[j] = Math.min(left[j], left[j + 1] - gap(row, j + 1));
      row.forEach(function (item, k) { item.x = (right[k] + left[k]) / 2; });
    }
    function gap(row, i) { return (row[i - 1].w + row[i].w) / 2 + COLUMN_GAP; }
    for (var pass = 0; pass < ALIGN_PASSES; pass++) {
      for (var d = 1; d < rows.length; d++) align(rows[d], rows[d][0].layer - 1);
      for (var u = rows.length - 2; u >= 0; u--) align(rows[u], rows[u][0].layer + 1);
    }
    var nodes = {};
    var waypoints = {};
    var y = 0;
    rows.forEach(function (row) {
      var height = Math.max.apply(null, row.map(function (item) { return item.h; }).concat([40]));
      row.forEach(function (item) {
        var point = { x: item.x, y: y + height / 2 };
        if (item.node !== undefined) nodes[item.node] = point;
        else (waypoints[item.edge] = waypoints[item.edge] || [])[item.k] = point;
      });
      y += height + ROW_GAP;
    });
    return { nodes: nodes, waypoints: waypoints };
  }

  // Cytoscape places segment corners relative to the source-target line: a weight along it and a
  // signed distance across it (to the left of source -> target).
  function route(edge, points) {
    var s = edge.source().position();
    var t = edge.target().position();
    var dx = t.x - s.x;
    var dy = t.y - s.y;
    var length = Math.sqrt(dx * dx + dy * dy) || 1;
    var weights = [];
    var distances = [];
    points.forEach(function (p) {
      weights.push(((p.x - s.x) * dx + (p.y - s.y) * dy) / (length * length));
      distances.push(((p.x - s.x) * -dy + (p.y - s.y) * dx) / length);
    });
    edge.style({ "curve-style": "round-segments", "edge-distances": "node-position", "segment-weights": weights,
      "segment-distances": distances, "segment-radius": 40 });
  }

  function draw() {
    var payload = JSON.parse(document.getElementById("crewts-flow-data").textContent);
    var ctx = document.createElement("canvas").getContext("2d");
    ctx.font = "600 " + FONT_SIZE + "px " + FONT_FAMILY;
    var layerOf = {};
    payload.nodes.forEach(function (n) { layerOf[n.id] = n.layer; });
    var elements = payload.nodes.map(function (n) { return nodeElement(ctx, n); })
      .concat(payload.edges.map(function (e) { return edgeElement(e, layerOf); }));
    var cy = cytoscape({
      container: document.getElementById("cy"),
      elements: elements,
      style: STYLE,
      minZoom: 0.1,
      maxZoom: 4,
      boxSelectionEnabled: false
    });
    var placed = place(cy, payload);
    var layout = cy.layout({ name: "preset", positions: placed.nodes, fit: false, animate: false });
    layout.one("layoutstop", function () {
      Object.keys(placed.waypoints).forEach(function (id) { route(cy.getElementById(id), placed.waypoints[id]); });
      cy.fit(undefined, 40);
      requestAnimationFrame(function () {
        requestAnimationFrame(function () {
          var positions = {};
          cy.nodes().forEach(function (n) { positions[n.id()] = { x: n.position("x"), y: n.position("y") }; });
          window.__crewtsFlowPlot = {
            cy: cy,
            nodes: cy.nodes().map(function (n) { return n.id(); }),
            edges: cy.edges().map(function (e) {
              return { id: e.id(), source: e.source().id(), target: e.target().id(), kind: e.data("kind"), label: e.data("label") };
            }),
            positions: positions,
            rendered: true
          };
        });
      });
    });
    layout.run();
    document.getElementById("fit").addEventListener("click", function () { cy.animate({ fit: { padding: 40 }, duration: 250 }); });
    cy.on("tap", "node", function (event) { describe(cy, event.target); });
    cy.on("tap", function (event) {
      if (event.target === cy) document.getElementById("info").className = "";
    });
    cy.on("mouseover", "node", function () { document.getElementById("cy").style.cursor = "pointer"; });
    cy.on("mouseout", "node", function () { document.getElementById("cy").style.cursor = ""; });
  }

  try {
    draw();
  } catch (error) {
    fail(error);
  }
})();
`;
}
