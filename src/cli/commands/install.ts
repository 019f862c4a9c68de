import { spawn } from "node:child_process";
import { CliError } from "../CliError.js";
import { findProjectRoot } from "../findProject.js";

/** `crewts install`: installs the project's dependencies with npm (CrewAI's `crewai install`). */
export async function install(): Promise<number> {
  const root = findProjectRoot();
  if (!root) throw new CliError(`No crewts project in ${process.cwd()} or its parent folders: cd into your project first (or create one: crewts create crew <name>).`);
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const child = spawn(npm, ["install"], { cwd: root, stdio: "inherit", env: process.env });
  return new Promise((resolve, reject) => {
    child.once("error", (error) => reject(new CliError(`Could not run npm install in ${root}: ${error.message}. Is npm on the PATH?`)));
    child.once("exit", (code) => resolve(code ?? 1));
  });
}
