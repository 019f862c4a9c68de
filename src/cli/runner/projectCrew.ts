import { CliError } from "../CliError.js";
import type { EntryModule } from "./projectRunner.js";

/** What the project's createCrew() gives: the crew, and optionally the LLM to chat with and what to close afterwards. */
export interface ProjectCrewSetup<C> {
  crew: C;
  llm?: unknown;
  close?: () => Promise<void>;
}

/** A crew as the CLI sees it (duck-typed: the project may have its own copy of crewts). */
export interface ProjectCrew {
  kickoff(...args: never[]): Promise<unknown>;
  tasks: unknown[];
}

/** Builds the project's crew with the createCrew() (or crew()) its entry exports, for `command`. */
export async function projectCrew<C extends ProjectCrew>(mod: EntryModule, file: string, command: string): Promise<ProjectCrewSetup<C>> {
  const factory = mod.createCrew ?? mod.crew;
  if (typeof factory !== "function") {
    throw new CliError(
      `${file} does not export createCrew(). ${command} needs it to build the crew: export async function createCrew() { return { crew, llm, close } } ` +
        "(a project made by crewts create crew has it; flows are run with crewts flow kickoff).",
    );
  }
  const made = await (factory as () => unknown)();
  const setup = (isCrew(made) ? { crew: made } : made) as ProjectCrewSetup<C> | undefined;
  if (!setup || !isCrew(setup.crew)) {
    throw new CliError(`createCrew() in ${file} must return the crew, or { crew, llm?, close? }; it returned ${typeof made}.`);
  }
  return setup;
}

function isCrew(value: unknown): value is ProjectCrew {
  return typeof value === "object" && value !== null && typeof (value as ProjectCrew).kickoff === "function" && Array.isArray((value as ProjectCrew).tasks);
}

/**
 * `crewts reset-memories --external` in the project's process: the crew's resetMemories("external"),
 * which clears the memories its ExternalMemory keeps at the provider. A crew without one has nothing
 * to reset: said unless `quiet` (as part of -a).
 */
export async function resetExternalMemory(mod: EntryModule, file: string, quiet: boolean): Promise<number> {
  const setup = await projectCrew<ProjectCrew & { name?: string; resetMemories?: (kind: string) => Promise<void> }>(mod, file, "crewts reset-memories --external");
  try {
    const { crew } = setup;
    if (typeof crew.resetMemories !== "function") throw new CliError(`The crew made by createCrew() in ${file} has no resetMemories(kind): update crewts in the project.`);
    try {
      await crew.resetMemories("external");
    } catch (error) {
      if (!(error instanceof Error && error.name === "CrewMemoryError" && /not enabled/.test(error.message))) throw error;
      if (!quiet) console.log(`External memory: not enabled on crew '${crew.name ?? "crew"}', so there was nothing to reset.`);
      return 0;
    }
    console.log("External memory reset.");
    return 0;
  } finally {
    await setup.close?.();
  }
}
