// What scenarios hand back to bench/run.ts: rows of the results table and details for RESULTS.md.
import { markdownTable } from "./markdown.js";
import type { Measured } from "./runner.js";
import { formatMs, formatRatio, relativeSpread } from "./stats.js";

/** One comparison: crewts against one peer (or an ideal or a limit) on one measure. */
export interface ResultRow {
  group: string;
  scenario: string;
  /** What the numbers are, e.g. "per step". */
  unit: string;
  crewts: string;
  /** The other side: a peer, an ideal or a limit. */
  against: string;
  other: string;
  /** crewts / other, when meaningful. */
  ratio?: number;
  goal?: string;
  /** undefined: no goal, or not measurable here. */
  met?: boolean;
}

/** A scenario's output. */
export interface ScenarioReport {
  group: string;
  rows: ResultRow[];
  /** Markdown paragraphs or tables with the raw numbers behind the rows. */
  details: string[];
  /** Total wall time the scenario took, filled in by run.ts. */
  elapsedMs?: number;
}

/** "1.27 µs ±4%" from a measurement (or why it is missing). */
export function cell(m: Measured | undefined): string {
  if (!m) return "n/a";
  if (m.unavailable) return `unavailable (${m.unavailable})`;
  if (!m.summary) return "n/a";
  const text = `${formatMs(m.summary.median)} ±${relativeSpread(m.summary).toFixed(0)}%`;
  return m.mismatch ? `${text} (!${m.mismatch})` : text;
}

/** Rows comparing the contender named `ours` (default "crewts") with each peer (default: every other contender); `maxRatio` is the goal. */
export function pairRows(
  group: string,
  scenario: string,
  unit: string,
  measured: readonly Measured[],
  maxRatio?: number,
  names: { ours?: string; peers?: readonly string[] } = {},
): ResultRow[] {
  const ours = measured.find((m) => m.name === (names.ours ?? "crewts"));
  return measured
    .filter((m) => m !== ours && (names.peers ? names.peers.includes(m.name) : !m.name.startsWith("crewts")))
    .map((peer) => {
      const ratio = ours?.summary && peer.summary ? ours.summary.median / peer.summary.median : undefined;
      const row: ResultRow = { group, scenario, unit, crewts: cell(ours), against: peer.name, other: cell(peer) };
      if (ratio !== undefined) row.ratio = ratio;
      if (maxRatio !== undefined) {
        row.goal = `ratio ≤ ${formatRatio(maxRatio)}`;
        if (ratio !== undefined) row.met = ratio <= maxRatio && !ours?.mismatch && !peer.mismatch;
      }
      return row;
    });
}

/** A markdown table of every sample set: median, quartiles, extremes, runs per sample. */
export function samplesTable(title: string, measured: readonly Measured[], unit: string): string {
  const rows = measured.map((m) =>
    m.summary
      ? [m.name, formatMs(m.summary.median), `${formatMs(m.summary.q1)} – ${formatMs(m.summary.q3)}`, `${formatMs(m.summary.min)} – ${formatMs(m.summary.max)}`, String(m.summary.n), String(m.runsPerSample)]
      : [m.name, m.unavailable ? `unavailable: ${m.unavailable}` : "n/a", "", "", "0", ""],
  );
  return `**${title}** (${unit})\n\n${markdownTable(["contender", "median", "q1 – q3", "min – max", "samples", "runs/sample"], rows)}`;
}
