// Footprint: the installed size of crewts's production dependency tree against each peer's, found by
// walking package.json dependencies (and non-optional peer dependencies, which npm installs) through
// node_modules with Node's resolution, and summing each package's files (its nested node_modules
// apart, as they are packages of their own).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { BenchConfig } from "../lib/config.js";
import { markdownTable } from "../lib/markdown.js";
import type { ResultRow, ScenarioReport } from "../lib/report.js";
import { formatMB, formatRatio } from "../lib/stats.js";

interface PackageJson {
  name?: string;
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** The size of a dependency closure. */
export interface Footprint {
  bytes: number;
  files: number;
  packages: number;
  /** Dependencies declared but not installed (platform-specific optional ones, mostly). */
  missing: string[];
  /** The largest packages, by size. */
  largest: { name: string; bytes: number }[];
}

const readJson = (path: string): PackageJson => JSON.parse(readFileSync(path, "utf8")) as PackageJson;

/** Node's lookup of `name` from a package directory: its node_modules, then each parent's. */
function resolvePackage(name: string, fromDir: string): string | undefined {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

function dirSize(dir: string, top = true): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (top && entry.name === "node_modules") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const sub = dirSize(path, false);
      bytes += sub.bytes;
      files += sub.files;
    } else if (entry.isFile()) {
      bytes += statSync(path).size;
      files++;
    }
  }
  return { bytes, files };
}

function dependencyNames(pkg: PackageJson, includeOptional: boolean): { name: string; optional: boolean }[] {
  const names = new Map<string, boolean>();
  for (const n of Object.keys(pkg.dependencies ?? {})) names.set(n, false);
  if (includeOptional) for (const n of Object.keys(pkg.optionalDependencies ?? {})) names.set(n, true);
  for (const n of Object.keys(pkg.peerDependencies ?? {})) if (!pkg.peerDependenciesMeta?.[n]?.optional && !names.has(n)) names.set(n, false);
  return [...names].map(([name, optional]) => ({ name, optional }));
}

/**
 * The closure of `roots` (package directories; `countRoots` includes their own files). For the
 * project itself the root is the repository and only its dependencies count.
 */
export function footprintOf(roots: string[], countRoots: boolean): Footprint {
  const seen = new Set<string>();
  const missing: string[] = [];
  const sizes: { name: string; bytes: number }[] = [];
  let bytes = 0;
  let files = 0;
  const visit = (dir: string, count: boolean): void => {
    if (seen.has(dir)) return;
    seen.add(dir);
    const pkg = readJson(join(dir, "package.json"));
    if (count) {
      const s = dirSize(dir);
      bytes += s.bytes;
      files += s.files;
      sizes.push({ name: `${pkg.name}@${pkg.version}`, bytes: s.bytes });
    }
    for (const dep of dependencyNames(pkg, true)) {
      const found = resolvePackage(dep.name, dir);
      if (found) visit(found, true);
      else if (!dep.optional) missing.push(`${dep.name} (of ${pkg.name})`);
    }
  };
  for (const root of roots) visit(root, countRoots);
  sizes.sort((a, b) => b.bytes - a.bytes);
  return { bytes, files, packages: sizes.length, missing, largest: sizes.slice(0, 5) };
}

/** Runs the footprint comparison. */
export async function footprintScenarios(config: BenchConfig): Promise<ScenarioReport> {
  // The peers are bench/'s own dependencies (bench/package.json), installed next to it.
  const nm = join(config.root, "bench", "node_modules");
  const crewtsDist = existsSync(join(config.root, "dist")) ? dirSize(join(config.root, "dist")).bytes : 0;
  const ours = footprintOf([config.root], false);
  const peers: { name: string; fp: Footprint }[] = [
    // LangGraph needs @langchain/core (a peer dependency the user installs next to it), which the walk includes.
    { name: "LangGraph.js", fp: footprintOf([join(nm, "@langchain/langgraph")], true) },
    { name: "KaibanJS", fp: footprintOf([join(nm, "kaibanjs")], true) },
  ];
  const rows: ResultRow[] = peers.map(({ name, fp }) => ({
    group: "footprint",
    scenario: "installed size of production dependencies",
    unit: "MB",
    crewts: formatMB(ours.bytes),
    against: name,
    other: formatMB(fp.bytes),
    ratio: ours.bytes / fp.bytes,
    goal: "crewts < 60 MB",
    met: ours.bytes < 60e6,
  }));
  const largest = (fp: Footprint) => fp.largest.map((p) => `${p.name} ${formatMB(p.bytes)}`).join(", ");
  return {
    group: "footprint",
    rows,
    details: [
      "Sizes are the sum of file sizes (MB = 10^6 bytes) of every package in the production dependency closure as installed in " +
        "this repository's node_modules (dependencies, installed optional dependencies, and non-optional peer dependencies, which npm " +
        `installs). crewts's own dist/ (${formatMB(crewtsDist)}) is not included; each peer's own package is.`,
      markdownTable(
        ["package", "size", "ratio crewts/this", "packages", "files", "largest"],
        [
          ["crewts (dependencies)", formatMB(ours.bytes), "1", String(ours.packages), String(ours.files), largest(ours)],
          ...peers.map(({ name, fp }) => [name, formatMB(fp.bytes), formatRatio(ours.bytes / fp.bytes), String(fp.packages), String(fp.files), largest(fp)]),
        ],
      ),
      ...[{ name: "crewts", fp: ours }, ...peers]
        .filter(({ fp }) => fp.missing.length > 0)
        .map(({ name, fp }) => `${name}: declared but not installed here: ${fp.missing.join(", ")}.`),
    ],
  };
}
