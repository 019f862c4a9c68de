/** What every command gets from the entry point. */
export interface CliContext {
  /** Absolute path of the crewts binary's script, which project processes run as their runner. */
  cliEntry: string;
  /** crewts's package.json: its version and the dependency ranges new projects use. */
  pkg: CrewtsPackageJson;
}

/** The parts of crewts's own package.json the CLI reads. */
export interface CrewtsPackageJson {
  version: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}
