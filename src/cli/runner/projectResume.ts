import { CliError } from "../CliError.js";
import { parseInputs } from "../commands/checkpoint.js";
import { projectCrew } from "./projectCrew.js";
import type { EntryModule } from "./projectRunner.js";

interface Resumable {
  kickoff(inputs: Record<string, unknown> | undefined, options: { fromCheckpoint: string }): Promise<unknown>;
}

/**
 * `crewts checkpoint resume|fork` in the project's process: the project's `resume(checkpointId, inputs?)`
 * when it exports one, else its crew (createCrew()) or its flow class, kicked off from the checkpoint.
 */
export async function resumeInProject(mod: EntryModule, file: string, [id, kind, location, inputsText]: string[]): Promise<number> {
  const inputs = inputsText ? parseInputs(inputsText) : undefined;
  if (typeof mod.resume === "function") {
    await (mod.resume as (id: string, inputs?: Record<string, unknown>) => unknown)(id!, inputs);
    return 0;
  }
  let result: unknown;
  if (kind === "crew") {
    const setup = await projectCrew<Resumable & { tasks: unknown[] }>(mod, file, "crewts checkpoint resume");
    try {
      result = await setup.crew.kickoff(inputs, { fromCheckpoint: id! });
    } finally {
      await setup.close?.();
    }
  } else if (kind === "flow") {
    const flowClass = Object.values(mod).find((v) => typeof v === "function" && typeof (v as { fork?: unknown }).fork === "function" && "plot" in ((v as { prototype?: object }).prototype ?? {}));
    if (!flowClass) throw new CliError(`${file} exports no flow class to resume checkpoint ${id!} with: export the flow class, or export resume(checkpointId).`);
    const flow = new (flowClass as new (options: object) => Resumable)(location ? { checkpoint: { location } } : {});
    result = await flow.kickoff(inputs, { fromCheckpoint: id! });
  } else {
    throw new CliError(`Checkpoint ${id!} is an ${kind!} checkpoint: export resume(checkpointId) from ${file} to resume it.`);
  }
  const text = typeof result === "object" && result !== null && "raw" in result ? String((result).raw) : JSON.stringify(result);
  console.log(text);
  return 0;
}
