import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { CliError } from "./CliError.js";

/** The default entry file of a project: its run/train/replay/test (or kickoff/plot) functions. */
export const DEFAULT_ENTRY = "src/main.ts";

/** A crewts project found on disk. */
export interface CrewtsProject {
  /** The folder holding its package.json. */
  root: string;
  /** Absolute path of the entry file (`"crewts": { "entry" }` in package.json, default src/main.ts). */
  entry: string;
  /** `"crewts": { "type" }` in package.json: "crew" or "flow" (default "crew"). */
  type: "crew" | "flow";
  name: string;
}

interface PackageJson {
  name?: string;
  crewts?: { entry?: unknown; type?: unknown };
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/**
 * The project `from` is in: the nearest folder upwards whose package.json depends on crewts or has a
 * `crewts` field. Throws a CliError saying how to get one when there is none.
 */
export function findProject(from: string = process.cwd()): CrewtsProject {
  const root = findProjectRoot(from);
  if (!root) {
    throw new CliError(
      `No crewts project in ${from} or its parent folders (a project has a package.json that depends on crewts). ` +
        "cd into your project, or create one: crewts create crew <name>",
    );
  }
  const pkg = readPackage(join(root, "package.json"))!;
  const settings = pkg.crewts ?? {};
  if (settings.entry !== undefined && (typeof settings.entry !== "string" || settings.entry.trim() === "")) {
    throw new CliError(`${join(root, "package.json")}: "crewts.entry" must be the path of the entry file, e.g. "${DEFAULT_ENTRY}".`);
  }
  if (settings.type !== undefined && settings.type !== "crew" && settings.type !== "flow") {
    throw new CliError(`${join(root, "package.json")}: "crewts.type" must be "crew" or "flow", got ${JSON.stringify(settings.type)}.`);
  }
  const entry = resolve(root, (settings.entry) ?? DEFAULT_ENTRY);
  if (!existsSync(entry)) {
    throw new CliError(
      `${relative(from, entry) || entry} not found. crewts runs the functions this file exports (run, train, replay, test, kickoff, plot); ` +
        `create it, or set "crewts": { "entry": "path/to/main.ts" } in ${join(root, "package.json")}.`,
    );
  }
  return { root, entry, type: (settings.type) ?? "crew", name: pkg.name ?? root };
}

/** The nearest project folder upwards from `from`, or undefined. */
export function findProjectRoot(from: string = process.cwd()): string | undefined {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const pkg = readPackage(join(dir, "package.json"));
    if (pkg && isProject(pkg)) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

function isProject(pkg: PackageJson): boolean {
  // crewts's own checkout depends on itself (so npx crewts works there) but is not a project.
  if (pkg.name === "crewts") return false;
  return pkg.crewts !== undefined || pkg.dependencies?.crewts !== undefined || pkg.devDependencies?.crewts !== undefined;
}

function readPackage(path: string): PackageJson | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as unknown;
    return typeof parsed === "object" && parsed !== null ? (parsed) : undefined;
  } catch (error) {
    throw new CliError(`${path} is not valid JSON (${(error as Error).message}); fix it and try again.`);
  }
}
