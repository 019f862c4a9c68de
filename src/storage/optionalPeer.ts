/** An optional peer dependency a feature needs is not installed; the message names the npm command. */
export class MissingPeerDependencyError extends Error {
  constructor(
    readonly packageName: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "MissingPeerDependencyError";
  }
}

/**
 * Loads an optional peer dependency (pg, hono, bullmq) on first use, so `import "crewts"` never loads
 * it and installs that do not use the feature never need it. `install` is what to pass to npm install,
 * `feature` what needs it ("Postgres stores").
 */
export async function loadOptionalPeer<T>(load: () => Promise<T>, install: string, feature: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
      const name = install.replace(/(?<=.)@.*$/, "");
      throw new MissingPeerDependencyError(name, `${feature} need the optional package ${name}: run \`npm install ${install}\` in your project.`, { cause: error });
    }
    throw error;
  }
}
