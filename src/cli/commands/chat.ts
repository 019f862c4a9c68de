import type { CliContext } from "../CliContext.js";
import { CliError } from "../CliError.js";
import { runInProject } from "../runInProject.js";

/** `crewts chat`: an interactive session in the project's process (see runner/chatSession.ts). */
export async function chat(ctx: CliContext): Promise<number> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new CliError("crewts chat is interactive and needs a terminal; run it in a terminal window, without piping its input or output.");
  }
  return runInProject(ctx.cliEntry, "chat");
}
