// Stability: 10,000 consecutive kickoffs of a small flow in one fresh process; RSS and heap after a
// forced GC are sampled every 1,000. No growth from the first sample to the last means no leak.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { BenchConfig } from "../lib/config.js";
import { markdownTable } from "../lib/markdown.js";
import type { ResultRow, ScenarioReport } from "../lib/report.js";
import { formatMs } from "../lib/stats.js";

interface ChildResult {
  samples: { kickoffs: number; rssMB: number; heapUsedMB: number }[];
  peakRssMB: number;
  gc: boolean;
  ms: number;
}

/** Allowed growth from the first sample to the last: heap 1 MB, RSS 10%. */
const HEAP_SLACK_MB = 1;
const RSS_SLACK = 1.1;

/** Runs the stability scenario. */
export async function stabilityScenarios(config: BenchConfig): Promise<ScenarioReport> {
  const total = 10_000;
  const tsx = createRequire(import.meta.url).resolve("tsx");
  const child = join(config.root, "bench", "scenarios", "stabilityChild.ts");
  const out = spawnSync(process.execPath, ["--expose-gc", "--import", tsx, child, String(total), "1000"], {
    cwd: config.root,
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: "" },
    maxBuffer: 16 * 2 ** 20,
  });
  if (out.status !== 0) throw new Error(`stability child exited ${out.status}: ${out.stderr.trim().split("\n").slice(-5).join(" ")}`);
  const result = JSON.parse(out.stdout) as ChildResult;
  const first = result.samples[0]!;
  const last = result.samples.at(-1)!;
  const heapGrowth = last.heapUsedMB - first.heapUsedMB;
  const rssRatio = last.rssMB / first.rssMB;
  const row: ResultRow = {
    group: "stability",
    scenario: `${total.toLocaleString("en-US")} consecutive flow kickoffs, memory after GC`,
    unit: "MB",
    crewts: `RSS ${first.rssMB} → ${last.rssMB} MB (peak ${result.peakRssMB}); heap ${first.heapUsedMB} → ${last.heapUsedMB} MB`,
    against: "first sample",
    other: `after ${first.kickoffs.toLocaleString("en-US")} kickoffs`,
    ratio: rssRatio,
    goal: `no growth (heap +${HEAP_SLACK_MB} MB, RSS +${Math.round((RSS_SLACK - 1) * 100)}% at most)`,
    met: result.gc && heapGrowth <= HEAP_SLACK_MB && rssRatio <= RSS_SLACK,
  };
  return {
    group: "stability",
    rows: [row],
    details: [
      `A five-method flow (start, two concurrent listeners, a router on their and-join, a listener of its label), a new instance per ` +
        `kickoff, in a fresh \`node --expose-gc\` process; ${total.toLocaleString("en-US")} kickoffs took ${formatMs(result.ms)} ` +
        `(${formatMs(result.ms / total)} each). Memory is read after a forced GC${result.gc ? "" : " (GC was NOT available: numbers are noisy)"}.`,
      markdownTable(
        ["kickoffs", "RSS (MB)", "heap used (MB)"],
        result.samples.map((s) => [s.kickoffs.toLocaleString("en-US"), String(s.rssMB), String(s.heapUsedMB)]),
      ),
    ],
  };
}
