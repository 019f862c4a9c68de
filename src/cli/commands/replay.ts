import type { CliContext } from "../CliContext.js";
import { runInProject } from "../runInProject.js";

/** `crewts replay -t <taskId>`: the project's replay(taskId), which reruns the latest kickoff from that task. */
export async function replay(ctx: CliContext, options: { taskId: string }): Promise<number> {
  return runInProject(ctx.cliEntry, "replay", [options.taskId]);
}
