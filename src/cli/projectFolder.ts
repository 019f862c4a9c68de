import { CliError } from "./CliError.js";
import { findProjectRoot } from "./findProject.js";

/**
 * Moves into the project folder when the working directory is inside a project, so that the
 * storage directory (named after the project folder unless CREWTS_STORAGE_DIR is set) is the one
 * `crewts run` used. Outside a project, only an explicit CREWTS_STORAGE_DIR says which storage to
 * use: without it `command` fails rather than reading or clearing some unrelated folder. Returns the folder used.
 */
export function useProjectFolder(command: string): string {
  const root = findProjectRoot();
  if (root && root !== process.cwd()) process.chdir(root);
  if (!root && (process.env.CREWTS_STORAGE_DIR ?? "").trim() === "") {
    throw new CliError(
      `crewts ${command} works on a project's stored data, and ${process.cwd()} is not inside a crewts project. ` +
        "Run it inside a crewts project (a folder whose package.json depends on crewts), or set CREWTS_STORAGE_DIR to the storage directory to use.",
    );
  }
  return process.cwd();
}
