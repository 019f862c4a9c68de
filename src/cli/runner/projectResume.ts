import { CliError } from "../CliError.js";
import { parseInputs } from "../commands/checkpoint.js";
import { projectCrew } from "./projectCrew.js";
import type { EntryModule } from "./projectRunner.js";

/** An agent as the CLI sees it (duck-typed: the project may have its own copy of crewts). */
interface ProjectAgent {
  role: string;
  llm: unknown;
  tools: unknown[];
  options: Record<string, unknown>;
  checkpointConfig?: Record<string, unknown>;
  kickoff(messages: string, options: { fromCheckpoint: string }): Promise<unknown>;
}

const isAgent = (v: unknown): v is ProjectAgent =>
  typeof v === "object" && v !== null && typeof (v as ProjectAgent).kickoff === "function" && typeof (v as ProjectAgent).role === "string" && "backstory" in v;

/**
 * The agent to resume an agent checkpoint with: the project's createAgent(), else the Agent it
 * exports. With --location, a copy writing its checkpoints there (where the checkpoint was found).
 */
async function projectAgent(mod: EntryModule, file: string, id: string, location: string): Promise<ProjectAgent> {
  const made = typeof mod.createAgent === "function" ? await (mod.createAgent as () => unknown)() : Object.values(mod).find(isAgent);
  if (!isAgent(made)) {
    throw new CliError(
      `Checkpoint ${id} belongs to a standalone agent, and ${file} ${typeof mod.createAgent === "function" ? "has a createAgent() that returned no agent" : "exports no agent"}: ` +
        "export the agent (export const agent = new Agent({ ... })) or createAgent() returning it, or export resume(checkpointId).",
    );
  }
  if (!location) return made;
  const Ctor = made.constructor as new (options: Record<string, unknown>) => ProjectAgent;
  return new Ctor({ ...made.options, llm: made.llm, tools: [...made.tools], checkpoint: { ...made.checkpointConfig, location } });
}

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
  } else if (kind === "agent") {
    const agent = await projectAgent(mod, file, id!, location!);
    // The agent resumes the checkpoint's request; --inputs has nothing to fill in.
    result = await agent.kickoff("", { fromCheckpoint: id! });
  } else {
    throw new CliError(`Checkpoint ${id!} is an ${kind!} checkpoint: export resume(checkpointId) from ${file} to resume it.`);
  }
  const text = typeof result === "object" && result !== null && "raw" in result ? String((result).raw) : JSON.stringify(result);
  console.log(text);
  return 0;
}
