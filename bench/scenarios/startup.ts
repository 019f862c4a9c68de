// Start-up: the time to import crewts (the built package, as users import it) and each peer in a
// fresh Node process, and the wall time of `crewts --help`. Processes alternate between targets.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import type { BenchConfig } from "../lib/config.js";
import { markdownTable } from "../lib/markdown.js";
import type { ResultRow, ScenarioReport } from "../lib/report.js";
import { formatMs, formatRatio, relativeSpread, summarize, type Summary } from "../lib/stats.js";

interface Target {
  name: string;
  /** Package specifier imported from the repository root ("crewts" resolves to dist/ through package.json exports). */
  specifier: string;
  /** Where it is imported from: the repository root for crewts, bench/ (whose node_modules hold them) for the peers. */
  dir: "root" | "bench";
}

const TARGETS: Target[] = [
  { name: "crewts", specifier: "crewts", dir: "root" },
  { name: "LangGraph.js", specifier: "@langchain/langgraph", dir: "bench" },
  { name: "KaibanJS", specifier: "kaibanjs", dir: "bench" },
];

// Prints the import's duration and the time since the process started, in ms.
const IMPORT_PROBE = (specifier: string) =>
  `const t0 = performance.now(); await import(${JSON.stringify(specifier)}); const t1 = performance.now(); process.stdout.write(JSON.stringify({ importMs: t1 - t0, sinceStartMs: t1 }));`;

function timeImport(root: string, specifier: string): { importMs: number; sinceStartMs: number } {
  const out = spawnSync(process.execPath, ["--input-type=module", "-e", IMPORT_PROBE(specifier)], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, KAIBAN_TELEMETRY_OPT_OUT: "true", NODE_OPTIONS: "" },
  });
  if (out.status !== 0) throw new Error(`importing ${specifier} failed: ${out.stderr.trim().split("\n").slice(-3).join(" ")}`);
  return JSON.parse(out.stdout) as { importMs: number; sinceStartMs: number };
}

function timeProcess(root: string, args: string[]): number {
  const t0 = performance.now();
  const out = spawnSync(process.execPath, args, { cwd: root, encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } });
  const ms = performance.now() - t0;
  if (out.status !== 0) throw new Error(`node ${args.join(" ")} exited ${out.status}: ${out.stderr.trim().split("\n").slice(-3).join(" ")}`);
  return ms;
}

const show = (s: Summary) => `${formatMs(s.median)} ±${relativeSpread(s).toFixed(0)}%`;

/** Runs the start-up scenarios; `buildError` is set when dist/ could not be built. */
export async function startupScenarios(config: BenchConfig, buildError?: string): Promise<ScenarioReport> {
  const samples = config.full ? 15 : 5;
  const report: ScenarioReport = { group: "start-up", rows: [], details: [] };
  const targets = buildError ? TARGETS.filter((t) => t.name !== "crewts") : TARGETS;
  const imports = new Map<string, number[]>(targets.map((t) => [t.name, []]));
  const sinceStart = new Map<string, number[]>(targets.map((t) => [t.name, []]));
  const help: number[] = [];
  const bare: number[] = [];
  const cli = join(config.root, "dist", "cli", "main.js");

  // One untimed round fills the file cache, then rounds alternate with a rotating order.
  for (let round = -1; round < samples; round++) {
    const order = [...targets.keys()].map((k) => targets[(k + Math.max(0, round)) % targets.length]!);
    for (const t of order) {
      const r = timeImport(t.dir === "root" ? config.root : join(config.root, "bench"), t.specifier);
      if (round >= 0) {
        imports.get(t.name)!.push(r.importMs);
        sinceStart.get(t.name)!.push(r.sinceStartMs);
      }
    }
    const h = buildError ? 0 : timeProcess(config.root, [cli, "--help"]);
    const b = timeProcess(config.root, ["-e", ""]);
    if (round >= 0) {
      if (!buildError) help.push(h);
      bare.push(b);
    }
  }

  const importSummary = new Map([...imports].map(([k, v]) => [k, summarize(v)]));
  const ours = importSummary.get("crewts");
  for (const t of targets.filter((t) => t.name !== "crewts")) {
    const peer = importSummary.get(t.name)!;
    const row: ResultRow = {
      group: "start-up",
      scenario: "import in a fresh process",
      unit: "ms",
      crewts: ours ? show(ours) : `unavailable (${buildError})`,
      against: t.name,
      other: show(peer),
      goal: "crewts < 150 ms",
    };
    if (ours) {
      row.ratio = ours.median / peer.median;
      row.met = ours.median < 150;
    }
    report.rows.push(row);
  }
  const bareSummary = summarize(bare);
  const helpRow: ResultRow = { group: "start-up", scenario: "`crewts --help` (whole process)", unit: "ms", crewts: "", against: "limit", other: "300 ms", goal: "< 300 ms" };
  if (help.length > 0) {
    const h = summarize(help);
    helpRow.crewts = show(h);
    helpRow.ratio = h.median / 300;
    helpRow.met = h.median < 300;
  } else helpRow.crewts = `unavailable (${buildError})`;
  report.rows.push(helpRow);

  const rows = targets.map((t) => {
    const s = importSummary.get(t.name)!;
    const p = summarize(sinceStart.get(t.name)!);
    return [t.name, formatMs(s.median), `${formatMs(s.min)} – ${formatMs(s.max)}`, formatMs(p.median), ours ? formatRatio(ours.median / s.median) : "n/a"];
  });
  report.details.push(
    `Each sample is a new \`node\` process (${samples} per target, alternating, after one untimed round) that imports the package by name ` +
      "from the repository root; crewts resolves to the built `dist/index.js` through its package.json `exports`. " +
      "\"import\" is the time of the `import()` alone; \"since process start\" adds Node's own start.",
    markdownTable(["package", "import (median)", "min – max", "since process start (median)", "crewts / this"], rows),
    `\`node dist/cli/main.js --help\`: ${help.length > 0 ? `${show(summarize(help))} for the whole process` : "not measured"}; ` +
      `an empty \`node -e ""\` takes ${show(bareSummary)} on this machine.`,
  );
  return report;
}
