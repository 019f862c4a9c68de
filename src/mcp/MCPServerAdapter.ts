import type { BaseTool } from "../tools/BaseTool.js";
import { resolveServerConfig, type MCPServerReference } from "./config.js";
import { MCPConnection } from "./MCPConnection.js";
import { MCPTool } from "./MCPTool.js";
import { applyToolFilter, type MCPToolInfo } from "./toolFilter.js";
import { assignToolNames } from "./toolNames.js";

/** Options of MCPServerAdapter.connect. */
export interface MCPServerAdapterOptions {
  /** Keep only these tools (names as the servers give them), as CrewAI's MCPServerAdapter(params, "tool_name"). */
  toolNames?: string[];
}

/**
 * Connections to one or more MCP servers managed by hand (CrewAI's MCPServerAdapter): `tools` are
 * crewts tools for any agent; the connections stay open until `close()`. Unlike an agent's `mcps`,
 * connect fails as a whole when any server cannot be reached.
 */
export class MCPServerAdapter {
  private constructor(
    /** The servers' tools, named without collisions (colliding names get the server's name as a prefix). */
    readonly tools: BaseTool[],
    private readonly connections: MCPConnection[],
  ) {}

  /** Connects to every server and lists its tools; throws (MCPConnectionError, MCPConfigError) and closes what it opened on any failure. */
  static async connect(config: MCPServerReference | readonly MCPServerReference[], options: MCPServerAdapterOptions = {}): Promise<MCPServerAdapter> {
    const references = Array.isArray(config) ? [...(config as readonly MCPServerReference[])] : [config as MCPServerReference];
    const configs = references.map((reference) => resolveServerConfig(reference));
    const connections = configs.map((resolved) => new MCPConnection(resolved));
    try {
      const listed = await Promise.all(connections.map((connection) => connection.listTools()));
      const wanted = options.toolNames ? new Set(options.toolNames) : undefined;
      const entries = listed.flatMap((tools, index) => {
        const resolved = configs[index]!;
        const kept = applyToolFilter(tools, resolved.toolFilter, { serverName: resolved.name });
        return kept.filter((info) => !wanted || wanted.has(info.name)).map((info: MCPToolInfo) => ({ connection: connections[index]!, info }));
      });
      const names = assignToolNames(entries.map(({ connection, info }) => ({ serverName: connection.serverName, toolName: info.name })));
      return new MCPServerAdapter(entries.map(({ connection, info }, index) => new MCPTool(connection, info, { name: names[index]! })), connections);
    } catch (error) {
      await Promise.all(connections.map((connection) => connection.close()));
      throw error;
    }
  }

  /** The tool named `name` (its crewts name or its name on the server); throws when there is none. */
  tool(name: string): BaseTool {
    const found = this.tools.find((t) => t.name === name || (t instanceof MCPTool && t.serverToolName === name));
    if (!found) throw new Error(`No MCP tool named "${name}". Available: ${this.tools.map((t) => t.name).join(", ") || "(none)"}.`);
    return found;
  }

  /** Process ids of the stdio servers this adapter started (while they run). */
  get pids(): number[] {
    return this.connections.flatMap((connection) => (connection.pid !== undefined ? [connection.pid] : []));
  }

  /** Closes every connection: stdio servers are stopped, HTTP sessions ended. */
  async close(): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.close()));
  }
}
