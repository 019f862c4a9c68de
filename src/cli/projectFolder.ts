import { findProjectRoot } from "./findProject.js";

/**
 * Moves into the project folder when the working directory is inside a project, so that the
 * storage directory (named after the project folder unless CREWTS_STORAGE_DIR is set) is the one
 * `crewts run` used. Returns the folder used.
 */
export function useProjectFolder(): string {
  const root = findProjectRoot();
  if (root && root !== process.cwd()) process.chdir(root);
  return process.cwd();
}
