import type { CliContext } from "../CliContext.js";
import { CliError } from "../CliError.js";
import { findProject, type CrewtsProject } from "../findProject.js";
import { runInProject } from "../runInProject.js";

/** `crewts flow kickoff`: the project's kickoff() (or the exported Flow class's). */
export async function flowKickoff(ctx: CliContext): Promise<number> {
  return runInProject(ctx.cliEntry, "kickoff", [], flowProject("kickoff"));
}

/** The project in the working directory, which must be a flow project for `crewts flow <command>`. */
export function flowProject(command: string): CrewtsProject {
  const project = findProject();
  if (project.type === "crew") {
    throw new CliError(
      `${project.name} is a crew project ("crewts": { "type": "crew" } in its package.json, the default), and crewts flow ${command} is for flow projects: ` +
        `run the crew with crewts run. If it is a flow, set "crewts": { "type": "flow" } in package.json.`,
    );
  }
  return project;
}
