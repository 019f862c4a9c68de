import type { CliContext } from "../CliContext.js";
import { findProject } from "../findProject.js";
import { runInProject } from "../runInProject.js";

/** `crewts run`: the project's run() (a flow project's kickoff()). */
export async function run(ctx: CliContext): Promise<number> {
  const project = findProject();
  return runInProject(ctx.cliEntry, project.type === "flow" ? "kickoff" : "run", [], project);
}
