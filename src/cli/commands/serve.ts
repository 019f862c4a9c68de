import type { CliContext } from "../CliContext.js";
import { runInProject } from "../runInProject.js";

/** `crewts serve`: the project's crew or flow over HTTP, run in the project's process. */
export async function serve(ctx: CliContext, options: { port: number; host: string; token?: string; queue: string }): Promise<number> {
  // The token goes to the project's process in its environment, never on a command line others can read.
  if (options.token) process.env.CREWTS_SERVER_TOKEN = options.token;
  return runInProject(ctx.cliEntry, "serve", [JSON.stringify({ port: options.port, host: options.host, queue: options.queue, version: ctx.pkg.version })]);
}

/** `crewts worker`: runs kickoffs from the Redis queue in the project's process. */
export async function worker(ctx: CliContext, options: { queue: string; concurrency: number }): Promise<number> {
  return runInProject(ctx.cliEntry, "worker", [JSON.stringify({ queue: options.queue, concurrency: options.concurrency })]);
}
