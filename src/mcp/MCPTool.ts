import { performance } from "node:perf_hooks";
import { z } from "zod";
import type { EventSource } from "../events/types.js";
import { BaseTool } from "../tools/BaseTool.js";
import type { MCPConnection } from "./MCPConnection.js";
import { limitResultLength, resultToText } from "./resultText.js";
import type { MCPToolInfo } from "./toolFilter.js";

type Arguments = Record<string, unknown>;

/**
 * A tool of an MCP server as a crewts tool: the server's input JSON schema becomes a zod schema, so
 * arguments are checked (and mistakes explained to the model) before anything is sent; the result
 * comes back as text, size-limited.
 */
export class MCPTool extends BaseTool<z.ZodType<Arguments>> {
  readonly name: string;
  readonly description: string;
  readonly schema: z.ZodType<Arguments>;
  /** The tool's name on its server (the crewts name may be sanitized and prefixed). */
  readonly serverToolName: string;

  constructor(
    private readonly connection: MCPConnection,
    info: MCPToolInfo,
    options: { name: string; source?: EventSource },
  ) {
    super();
    this.serverToolName = info.name;
    this.name = options.name;
    // A tool without a description still needs one for the model; the server's name for it says the most.
    this.description = info.description?.trim() || `The "${info.name}" tool of the MCP server "${connection.serverName}".`;
    this.schema = schemaFromJson(info.inputSchema);
    this.source = options.source ?? {};
  }

  private readonly source: EventSource;

  /** The server this tool belongs to. */
  get serverName(): string {
    return this.connection.serverName;
  }

  async run(args: Arguments): Promise<string> {
    const connection = this.connection;
    const toolName = this.serverToolName;
    const started = performance.now();
    connection.emitToolEvent("mcp_tool_execution_started", (fields) => ({ ...this.source, ...fields, toolName, toolArgs: args }));
    let text: string;
    let isError: boolean;
    try {
      ({ text, isError } = resultToText(await connection.callTool(toolName, args, this.source)));
    } catch (error) {
      const message = connection.redactText(error instanceof Error ? error.message : String(error));
      connection.emitToolEvent("mcp_tool_execution_failed", (fields) => ({ ...this.source, ...fields, toolName, toolArgs: args, error: message, durationMs: performance.now() - started }));
      throw error;
    }
    const output = limitResultLength(text, connection.config.maxResultLength);
    if (isError) {
      connection.emitToolEvent("mcp_tool_execution_failed", (fields) => ({ ...this.source, ...fields, toolName, toolArgs: args, error: output, durationMs: performance.now() - started }));
      // The server's own error result is an answer for the model, not a failure to retry.
      return `The MCP tool "${toolName}" reported an error: ${output}`;
    }
    connection.emitToolEvent("mcp_tool_execution_completed", (fields) => ({ ...this.source, ...fields, toolName, toolArgs: args, output, durationMs: performance.now() - started }));
    return output;
  }
}

/**
 * The zod schema of an MCP input schema (zod's own JSON Schema reader). A schema zod cannot read
 * becomes "any object": the arguments then go unchecked to the server, which validates them itself.
 */
export function schemaFromJson(inputSchema: Record<string, unknown>): z.ZodType<Arguments> {
  const json = { ...inputSchema, type: "object" };
  try {
    return z.fromJSONSchema(json as Parameters<typeof z.fromJSONSchema>[0]) as z.ZodType<Arguments>;
  } catch {
    return z.looseObject({});
  }
}
