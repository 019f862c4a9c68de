// The frameworks the benchmarks compare crewts with (LangGraph.js, KaibanJS, @libsql/client) are
// bench/'s own dependencies, not crewts's: `npm ci` at the root stays small, and `npm run bench`
// installs them here from bench/package-lock.json the first time (or when the lock changed).
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const bench = dirname(fileURLToPath(import.meta.url));
const lock = join(bench, "package-lock.json");
const installedLock = join(bench, "node_modules", ".package-lock.json");

/** True when bench/node_modules holds what bench/package-lock.json asks for. */
function peersInstalled(): boolean {
  if (!existsSync(installedLock)) return false;
  type Lock = { packages?: Record<string, { version?: string; optional?: boolean; extraneous?: boolean }> };
  const wanted = JSON.parse(readFileSync(lock, "utf8")) as Lock;
  const have = JSON.parse(readFileSync(installedLock, "utf8")) as Lock;
  // Optional packages of other platforms (native builds) are in the lock but never installed here.
  return Object.entries(wanted.packages ?? {}).every(([path, pkg]) => path === "" || pkg.optional === true || pkg.extraneous === true || have.packages?.[path]?.version === pkg.version);
}

if (!peersInstalled()) {
  console.log("Installing the benchmark peers into bench/node_modules (first run only)...");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const out = spawnSync(npm, ["ci", "--no-audit", "--no-fund"], { cwd: bench, stdio: "inherit" });
  if (out.status !== 0) {
    console.error("npm ci in bench/ failed: the benchmarks need the registry once to install LangGraph.js and KaibanJS.");
    process.exit(out.status ?? 1);
  }
}
