import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { CliError } from "../CliError.js";

/** How a new project depends on crewts, and why (printed by `create`). */
export interface CrewtsDependency {
  /** The version range or `file:` spec written into the project's package.json. */
  spec: string;
  /** Why this spec: "registry", "tarball" or "given". */
  source: "registry" | "tarball" | "given";
}

/** The environment variable that sets the spec when `--crewts` is not given (e.g. "^0.2.0", "file:../crewts"). */
export const CREWTS_DEPENDENCY_ENV = "CREWTS_DEPENDENCY";

/**
 * Decides what a new project's package.json says for crewts, so that `npm install` works whether or
 * not crewts is in a registry:
 * 1. `given` (the --crewts option), else CREWTS_DEPENDENCY, is used as it is.
 * 2. A crewts that npm installed from a registry (its node_modules lock records an https URL) is in
 *    that registry: `^<version>`.
 * 3. Otherwise (a git checkout, a tarball, a linked folder) crewts is packed into the project as
 *    `crewts-<version>.tgz` and the dependency is `file:crewts-<version>.tgz`: the project installs
 *    offline from it, and moves to the registry by changing that line once crewts is published.
 */
export async function crewtsDependency(crewtsRoot: string, version: string, projectRoot: string, given?: string): Promise<CrewtsDependency> {
  const explicit = (given ?? process.env[CREWTS_DEPENDENCY_ENV] ?? "").trim();
  if (explicit !== "") return { spec: explicit, source: "given" };
  if (installedFromRegistry(crewtsRoot)) return { spec: `^${version}`, source: "registry" };
  const tarball = await packInto(crewtsRoot, projectRoot, version);
  return { spec: `file:${tarball}`, source: "tarball" };
}

/** Whether the crewts package at `root` was installed by npm from a registry (not a file, folder or git URL). */
export function installedFromRegistry(root: string): boolean {
  const parts = root.split(sep);
  const at = parts.lastIndexOf("node_modules");
  if (at === -1) return false;
  // npm's hidden lockfile in that node_modules folder records where each package came from.
  const lock = join(parts.slice(0, at + 1).join(sep) || sep, ".package-lock.json");
  if (!existsSync(lock)) return false;
  try {
    const packages = (JSON.parse(readFileSync(lock, "utf8")) as { packages?: Record<string, { resolved?: unknown }> }).packages ?? {};
    const key = `node_modules/${parts.slice(at + 1).join("/")}`;
    const resolved = packages[key]?.resolved;
    return typeof resolved === "string" && /^https?:\/\//.test(resolved);
  } catch {
    return false;
  }
}

/** `npm pack` of crewts into the project folder; resolves with the tarball's file name. Builds first when dist/ is missing (prepack). */
async function packInto(crewtsRoot: string, projectRoot: string, version: string): Promise<string> {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const built = existsSync(join(crewtsRoot, "dist", "index.js"));
  const args = ["pack", "--pack-destination", projectRoot, "--silent", ...(built ? ["--ignore-scripts"] : [])];
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(npm, args, { cwd: crewtsRoot, maxBuffer: 16 * 1024 * 1024 }, (error, out, err) => {
      if (error) {
        reject(
          new CliError(
            `Could not pack crewts from ${crewtsRoot} into the new project (npm pack: ${(err || error.message).trim().split("\n").slice(-3).join(" ")}). ` +
              `Build crewts there (npm run build) and try again, or name a published version (crewts create crew <name> --crewts ^${version}).`,
          ),
        );
      } else resolve(out);
    });
  });
  const file = stdout.trim().split("\n").at(-1)?.trim() ?? "";
  if (!file.endsWith(".tgz") || !existsSync(join(projectRoot, file))) {
    throw new CliError(`npm pack in ${crewtsRoot} did not write a tarball into ${relative(process.cwd(), projectRoot) || dirname(projectRoot)} (it printed: ${stdout.trim() || "nothing"}).`);
  }
  return file;
}
