import type { CliContext } from "../CliContext.js";
import { runInProject } from "../runInProject.js";

/** `crewts flow kickoff`: the project's kickoff() (or the exported Flow class's). */
export async function flowKickoff(ctx: CliContext): Promise<number> {
  return runInProject(ctx.cliEntry, "kickoff");
}
