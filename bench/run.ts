// Benchmarks of crewts's orchestration overhead, side by side with LangGraph.js and KaibanJS in the
// same run. `npm run bench` (short, under 3 minutes) or `npm run bench -- --full`.
// Options: --only=flow,crew,concurrency,agent,start-up,footprint,stability,knowledge,memory,in-flight,queue,tracing,checkpoint,streaming  --no-build  --no-write
// Each group runs in a fresh process of its own (this script with --group), so what one group leaves
// in the heap (the knowledge group's indexes, the memory group's stores) does not slow the next.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, release, tmpdir, totalmem, type } from "node:os";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchConfig } from "./lib/config.js";
import { markdownTable } from "./lib/markdown.js";
import type { ResultRow, ScenarioReport } from "./lib/report.js";
import { formatRatio } from "./lib/stats.js";
import { agentScenarios } from "./scenarios/agent.js";
import { checkpointScenarios } from "./scenarios/checkpoint.js";
import { concurrencyScenarios } from "./scenarios/concurrency.js";
import { crewScenarios } from "./scenarios/crew.js";
import { flowScenarios } from "./scenarios/flow.js";
import { footprintScenarios } from "./scenarios/footprint.js";
import { inFlightScenarios } from "./scenarios/inFlight.js";
import { knowledgeScenarios } from "./scenarios/knowledge.js";
import { memoryScenarios } from "./scenarios/memory.js";
import { queueScenarios } from "./scenarios/queue.js";
import { stabilityScenarios } from "./scenarios/stability.js";
import { tracingScenarios } from "./scenarios/tracing.js";
import { startupScenarios } from "./scenarios/startup.js";
import { streamingScenarios } from "./scenarios/streaming.js";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const args = process.argv.slice(2);
const full = args.includes("--full");
const only = args.find((a) => a.startsWith("--only="))?.slice("--only=".length).split(",");
const build = !args.includes("--no-build");
// Internal: run one group in this process and write its report as JSON to `--report=`.
const group = args.find((a) => a.startsWith("--group="))?.slice("--group=".length);
const reportFile = args.find((a) => a.startsWith("--report="))?.slice("--report=".length);
const write = !args.includes("--no-write");
const resultsFile = join(root, "bench", "RESULTS.md");

const tmp = mkdtempSync(join(tmpdir(), "crewts-bench-"));
// Crews store task outputs in the storage directory: keep the bench's out of the user's.
process.env.CREWTS_STORAGE_DIR = join(tmp, "storage");
mkdirSync(process.env.CREWTS_STORAGE_DIR, { recursive: true });
const config: BenchConfig = { full, tmpDir: tmp, root };

/** dist/ as users import it; the start-up scenario measures it. Returns why it failed, if it did. */
function buildDist(): string | undefined {
  const out = spawnSync("npm", ["run", "build"], { cwd: root, encoding: "utf8" });
  if (out.status === 0) return undefined;
  return `npm run build failed: ${(out.stderr || out.stdout).trim().split("\n").slice(-3).join(" ")}`;
}

const scenarios: { group: string; run: () => Promise<ScenarioReport> }[] = [
  { group: "start-up", run: () => startupScenarios(config, build ? buildDist() : existsSync(join(root, "dist", "index.js")) ? undefined : "dist/ missing; run without --no-build") },
  { group: "footprint", run: () => footprintScenarios(config) },
  { group: "flow", run: () => flowScenarios(config) },
  { group: "crew", run: () => crewScenarios(config) },
  { group: "concurrency", run: () => concurrencyScenarios(config) },
  { group: "agent", run: () => agentScenarios(config) },
  { group: "stability", run: () => stabilityScenarios(config) },
  { group: "knowledge", run: () => knowledgeScenarios(config) },
  { group: "memory", run: () => memoryScenarios(config) },
  { group: "queue", run: () => queueScenarios(config) },
  { group: "in-flight", run: () => inFlightScenarios(config) },
  { group: "tracing", run: () => tracingScenarios(config) },
  { group: "checkpoint", run: () => checkpointScenarios(config) },
  { group: "streaming", run: () => streamingScenarios(config) },
];

const HEADERS = ["group", "scenario", "unit", "crewts", "vs", "other", "crewts/other", "goal", "met"];
const rowCells = (r: ResultRow) => [
  r.group,
  r.scenario,
  r.unit,
  r.crewts,
  r.against,
  r.other,
  r.ratio === undefined ? "" : formatRatio(r.ratio),
  r.goal ?? "",
  r.met === undefined ? (r.goal ? "n/a" : "") : r.met ? "yes" : "**NO**",
];

function machine(): string[] {
  const version = (pkg: string) => {
    try {
      return (JSON.parse(readFileSync(join(root, "bench", "node_modules", pkg, "package.json"), "utf8")) as { version: string }).version;
    } catch {
      return "not installed";
    }
  };
  let commit = "unknown";
  try {
    commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
  } catch {
    // not a git checkout
  }
  const cpu = cpus();
  return [
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${cpu[0]?.model ?? "unknown CPU"}, ${cpu.length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${type()} ${release()}`,
    `- Node ${process.version}; crewts ${(JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version} (commit ${commit}, working tree as it was)`,
    `- Peers: @langchain/langgraph ${version("@langchain/langgraph")}, @langchain/core ${version("@langchain/core")}, @langchain/langgraph-checkpoint-sqlite ${version("@langchain/langgraph-checkpoint-sqlite")}, kaibanjs ${version("kaibanjs")}`,
  ];
}

/** Runs one group here and writes its report to `file` (the child side of runGroupInChild). */
async function runGroupHere(name: string, file: string): Promise<void> {
  const t0 = performance.now();
  try {
    const s = scenarios.find((c) => c.group === name);
    if (!s) throw new Error(`unknown bench group "${name}"; the groups: ${scenarios.map((c) => c.group).join(", ")}`);
    const report = await s.run();
    report.elapsedMs = performance.now() - t0;
    writeFileSync(file, JSON.stringify(report));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Runs one group in a fresh process and reads back its report; a group that fails is reported as failed, the others go on. */
function runGroupInChild(name: string): ScenarioReport {
  const t0 = performance.now();
  const file = join(tmp, `${name}.json`);
  const tsx = createRequire(import.meta.url).resolve("tsx");
  const childArgs = ["--import", tsx, fileURLToPath(import.meta.url), `--group=${name}`, `--report=${file}`, ...(full ? ["--full"] : []), ...(build ? [] : ["--no-build"])];
  const out = spawnSync(process.execPath, childArgs, { cwd: root, encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" }, stdio: ["ignore", "inherit", "pipe"], maxBuffer: 64 * 2 ** 20 });
  if (out.status === 0 && existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as ScenarioReport;
  // One broken scenario (e.g. src/ mid-edit) must not lose the others.
  const message = (out.stderr || `exited ${out.status ?? out.signal}`).trim();
  console.error(`${name} failed: ${message}`);
  const firstLine = message.split("\n").find((line) => line.trim() !== "") ?? message;
  return { group: name, rows: [{ group: name, scenario: "scenario failed", unit: "", crewts: firstLine, against: "", other: "" }], details: [], elapsedMs: performance.now() - t0 };
}

if (group !== undefined) {
  if (!reportFile) throw new Error("--group needs --report=<file> (it is how bench/run.ts runs each group in a process of its own)");
  await runGroupHere(group, reportFile);
  process.exit(0);
}

const started = performance.now();
const reports: ScenarioReport[] = [];
try {
  for (const s of scenarios) {
    if (only && !only.includes(s.group)) continue;
    process.stdout.write(`\n== ${s.group} ...\n`);
    const report = runGroupInChild(s.group);
    reports.push(report);
    console.log(markdownTable(HEADERS, report.rows.map(rowCells)));
    console.log(`(${((report.elapsedMs ?? 0) / 1000).toFixed(1)} s)`);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
const totalS = (performance.now() - started) / 1000;

const rows = reports.flatMap((r) => r.rows);
const goals = rows.filter((r) => r.goal !== undefined);
const met = goals.filter((r) => r.met === true).length;
console.log(`\n== summary: ${met} of ${goals.length} goal checks met; ${full ? "full" : "short"} run took ${totalS.toFixed(0)} s`);
for (const r of goals) console.log(`  ${r.met === true ? "met   " : r.met === false ? "MISSED" : "n/a   "} ${r.group}: ${r.scenario} vs ${r.against} (${r.goal})`);

if (write && !only) {
  // Everything from "## Findings" on is written by people (profiles, recommendations) and kept.
  const previous = existsSync(resultsFile) ? readFileSync(resultsFile, "utf8") : "";
  const findingsAt = previous.indexOf("\n## Findings");
  const findings = findingsAt >= 0 ? previous.slice(findingsAt + 1) : "## Findings\n\n(none written yet)\n";
  const md = [
    "# crewts benchmark results",
    "",
    `Generated by \`npm run bench${full ? " -- --full" : ""}\` (${full ? "full" : "short"} run, ${totalS.toFixed(0)} s). ` +
      "Each group ran in a fresh process of its own; every comparison ran in one process (or, for start-up, the same loop of fresh processes), contenders alternating " +
      "sample by sample after a warm-up. Numbers are medians; ± is half the interquartile range over the median. " +
      "crewts runs from src/ through tsx, except start-up, which imports the built dist/.",
    "",
    ...machine(),
    "",
    "## Results",
    "",
    markdownTable(HEADERS, rows.map(rowCells)),
    "",
    `Goals: ${met} of ${goals.length} checks met.`,
    "",
    ...reports.flatMap((r) => [`## Details: ${r.group} (${((r.elapsedMs ?? 0) / 1000).toFixed(1)} s)`, "", ...r.details.flatMap((d) => [d, ""])]),
    findings.trimEnd(),
    "",
  ].join("\n");
  writeFileSync(resultsFile, md);
  console.log(`wrote ${resultsFile}`);
}
