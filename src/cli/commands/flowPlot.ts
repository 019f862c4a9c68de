import { resolve } from "node:path";
import type { CliContext } from "../CliContext.js";
import { runInProject } from "../runInProject.js";
import { flowProject } from "./flowKickoff.js";

/** `crewts flow plot [-o file]`: the project's plot(filename?) (or the exported Flow class's), which writes the HTML. */
export async function flowPlot(ctx: CliContext, options: { output?: string }): Promise<number> {
  // Relative to where the user is, not to the project folder the runner works in.
  return runInProject(ctx.cliEntry, "plot", options.output === undefined ? [] : [resolve(options.output)], flowProject("plot"));
}
