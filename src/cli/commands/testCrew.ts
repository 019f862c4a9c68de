import type { CliContext } from "../CliContext.js";
import { runInProject } from "../runInProject.js";

/** `crewts test -n <iterations> -m <model>`: the project's test(iterations, evalModel). */
export async function testCrew(ctx: CliContext, options: { nIterations: number; model: string }): Promise<number> {
  return runInProject(ctx.cliEntry, "test", [String(options.nIterations), options.model]);
}
