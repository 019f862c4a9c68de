import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { constants } from "node:os";
import { CliError } from "./CliError.js";
import { findProject, type CrewtsProject } from "./findProject.js";

/** What the project runner (the hidden `crewts __project` command) can do in a project's process. */
export type ProjectAction = "run" | "kickoff" | "plot" | "replay" | "train" | "test" | "chat" | "reset-external" | "resume" | "mcp-serve" | "serve" | "worker";

/** The name of the hidden command the child process runs. */
export const PROJECT_RUNNER_COMMAND = "__project";

/**
 * Runs an action of the project in the working directory in a child process and resolves with its
 * exit code. The child is `node [--env-file=.env] --import tsx <crewts cli> __project <action> <entry> ...args`,
 * started in the project folder: the project's own crewts, tsx and tsconfig are used, .env is
 * loaded, and output and the terminal go straight to the user.
 */
export async function runInProject(
  cliEntry: string,
  action: ProjectAction,
  args: string[] = [],
  project: CrewtsProject = findProject(),
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const nodeArgs: string[] = [];
  const envFile = join(project.root, ".env");
  if (existsSync(envFile)) nodeArgs.push(`--env-file=${envFile}`);
  if (/\.[cm]?tsx?$/.test(project.entry)) nodeArgs.push("--import", pathToFileURL(tsxLoader(project)).href);
  nodeArgs.push(cliEntry, PROJECT_RUNNER_COMMAND, action, project.entry, ...args);

  const child = spawn(process.execPath, nodeArgs, { cwd: project.root, stdio: "inherit", env });
  // Ctrl-C reaches the child too (same terminal); the CLI waits for it to finish instead of dying first.
  const ignore = (): void => {};
  // A SIGTERM sent to the CLI alone (a process manager stopping `crewts serve`) is passed on, so the
  // child shuts down gracefully and the CLI exits with it.
  const forward = (): void => void child.kill("SIGTERM");
  process.on("SIGINT", ignore);
  process.on("SIGTERM", forward);
  try {
    return await new Promise<number>((resolvePromise, reject) => {
      child.once("error", (error) => reject(new CliError(`Could not start node for ${project.root}: ${error.message}`)));
      child.once("exit", (code, signal) => {
        resolvePromise(code ?? (signal ? 128 + (constants.signals[signal] ?? 1) : 1));
      });
    });
  } finally {
    process.off("SIGINT", ignore);
    process.off("SIGTERM", forward);
  }
}

/** The tsx loader the project has installed (or, in a crewts checkout, crewts's own). */
function tsxLoader(project: CrewtsProject): string {
  const fromProject = tryResolve(join(project.root, "package.json"), "tsx");
  if (fromProject) return fromProject;
  const fromCli = tryResolve(import.meta.url, "tsx");
  if (fromCli) return fromCli;
  const entry = relative(project.root, project.entry);
  if (!existsSync(join(project.root, "node_modules"))) {
    throw new CliError(`The project's dependencies are not installed: run npm install in ${project.root}, then try again.`);
  }
  throw new CliError(`tsx is not installed in ${project.root}, and crewts needs it to run ${entry}. Run: npm install --save-dev tsx`);
}

function tryResolve(from: string, specifier: string): string | undefined {
  try {
    return createRequire(from).resolve(specifier);
  } catch {
    return undefined;
  }
}
