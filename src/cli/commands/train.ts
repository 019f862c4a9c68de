import type { CliContext } from "../CliContext.js";
import { runInProject } from "../runInProject.js";

/** `crewts train -n <iterations> -f <file>`: the project's train(iterations, filename). */
export async function train(ctx: CliContext, options: { nIterations: number; filename: string }): Promise<number> {
  return runInProject(ctx.cliEntry, "train", [String(options.nIterations), options.filename]);
}
