import type { CliContext } from "../CliContext.js";
import { CliError } from "../CliError.js";
import { findProject } from "../findProject.js";
import { runInProject } from "../runInProject.js";

/** Options of `crewts mcp serve`. */
export interface McpServeOptions {
  crew?: boolean;
  flow?: boolean;
  transport: string;
  port: string;
  host: string;
  token?: string;
}

/** `crewts mcp serve`: the project's crew or flow as an MCP tool, served from the project's own process. */
export async function mcpServe(ctx: CliContext, options: McpServeOptions): Promise<number> {
  if (options.crew && options.flow) throw new CliError("Choose one of --crew and --flow.");
  if (options.transport !== "stdio" && options.transport !== "http") throw new CliError(`--transport must be stdio or http, got "${options.transport}".`);
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be a port number (0-65535), got "${options.port}".`);
  const project = findProject();
  const kind = options.crew ? "crew" : options.flow ? "flow" : project.type;
  // Through the environment, not the command line, where other users of the machine could read it.
  if (options.token) process.env.CREWTS_SERVER_TOKEN = options.token;
  return runInProject(ctx.cliEntry, "mcp-serve", [kind, options.transport, String(port), options.host, project.name], project);
}
