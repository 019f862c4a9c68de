import type { CliContext } from "../CliContext.js";
import { runInProject } from "../runInProject.js";

/** Options of `crewts test`. */
export interface TestCrewOptions {
  nIterations: number;
  model: string;
  /** Send the project's provider traffic through a cassette: record it, or replay it offline. */
  record?: boolean;
  replay?: boolean;
  /** The cassette file, relative to the project (default test/cassettes/crewts-test.json). */
  cassette?: string;
}

/** `crewts test -n <iterations> -m <model> [--record | --replay]`: the project's test(iterations, evalModel). */
export async function testCrew(ctx: CliContext, options: TestCrewOptions): Promise<number> {
  const args = [String(options.nIterations), options.model];
  if (options.record || options.replay || options.cassette !== undefined) {
    // Loaded only here: the cassette server is not part of a plain run.
    const { testWithCassette } = await import("./testWithCassette.js");
    return testWithCassette(ctx, args, options);
  }
  return runInProject(ctx.cliEntry, "test", args);
}
