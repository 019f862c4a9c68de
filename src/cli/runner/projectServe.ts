import { once } from "node:events";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { eventBus as ownEventBus } from "../../events/EventBus.js";
import { createServer } from "../../serve/createServer.js";
import { crewController, flowController, type CrewFactory, type ServableFlow } from "../../serve/projectController.js";
import type { RunEventSource } from "../../serve/runEvents.js";
import type { RunController } from "../../serve/types.js";
import { CliError } from "../CliError.js";
import { isClass, type EntryModule } from "./projectRunner.js";

interface ServeArgs {
  port?: number;
  host?: string;
  queue?: string;
  version?: string;
  concurrency?: number;
}

/**
 * `crewts serve` and `crewts worker` in the project's process: the project's createCrew() (or its
 * exported Flow class) behind a RunController, served over HTTP or run from the queue. Both stop
 * gracefully on SIGTERM or Ctrl-C.
 */
export async function serveProject(action: "serve" | "worker", mod: EntryModule, file: string, args: string[]): Promise<number> {
  const options = JSON.parse(args[0] ?? "{}") as ServeArgs;
  const controller = projectController(mod, file, await projectEventBus());
  const redisUrl = process.env.CREWTS_REDIS_URL;
  const stop = Promise.race([once(process, "SIGTERM"), once(process, "SIGINT")]);

  if (action === "worker") {
    const { startWorker } = await import("../../worker/KickoffWorker.js");
    const worker = await startWorker({ controller, queue: options.queue, concurrency: options.concurrency });
    console.log(`crewts worker: running kickoffs from queue "${options.queue ?? "crewts"}" (concurrency ${options.concurrency ?? 10}).`);
    await stop;
    console.log("crewts worker: shutting down; running kickoffs get 30 s to finish.");
    await worker.close();
    return 0;
  }

  const backend = redisUrl ? await (await import("../../worker/QueueRuns.js")).QueueRuns.connect(redisUrl, { queue: options.queue }) : undefined;
  const server = await createServer({ controller, ...(backend ? { backend } : {}), version: options.version });
  const url = await server.listen({ port: options.port, host: options.host });
  console.log(`crewts serve: listening on ${url} (${backend ? `kickoffs go to queue "${options.queue ?? "crewts"}" on Redis` : "kickoffs run in this process"}).`);
  await stop;
  console.log("crewts serve: shutting down; running kickoffs get 30 s to finish.");
  await server.close();
  return 0;
}

function projectController(mod: EntryModule, file: string, bus: RunEventSource): RunController {
  const factory = mod.createCrew ?? mod.crew;
  if (typeof factory === "function" && !isClass(factory)) return crewController(factory as CrewFactory, bus);
  const flowClass = Object.values(mod).find((value) => isClass(value) && typeof (value as { prototype: { kickoff?: unknown } }).prototype.kickoff === "function");
  if (flowClass) return flowController(() => new (flowClass as new () => ServableFlow)(), bus);
  throw new CliError(`${file} exports neither createCrew() nor a Flow class: crewts serve and crewts worker need one to make a crew or flow per kickoff.`);
}

/** The event bus of the crewts the project imports (it may have its own copy), else this one. */
async function projectEventBus(): Promise<RunEventSource> {
  try {
    const path = createRequire(join(process.cwd(), "package.json")).resolve("crewts");
    const mod = (await import(pathToFileURL(path).href)) as { eventBus?: RunEventSource };
    return mod.eventBus ?? ownEventBus;
  } catch {
    return ownEventBus;
  }
}
