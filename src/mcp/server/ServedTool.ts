/** Reports progress of a served tool call; sent to the client as notifications/progress when it asked for them. */
export type ProgressReporter = (progress: number, total: number | undefined, message: string) => void;

/** A tool `crewts mcp serve` offers: a crew or flow of the project behind an MCP tool. */
export interface ServedTool {
  name: string;
  description: string;
  /** JSON schema of the arguments (an object schema). */
  inputSchema: Record<string, unknown>;
  /** Runs the tool; the text returned is the tool result. Throw to answer with an error result. */
  run(args: Record<string, unknown>, progress: ProgressReporter): Promise<string>;
}
