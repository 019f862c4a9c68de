import type { EventSource } from "../events/types.js";
import type { BaseTool } from "../tools/BaseTool.js";
import { resolveServerConfig, type MCPServerReference, type ResolvedMCPServerConfig } from "./config.js";
import { MCPConnectionError } from "./errors.js";
import { MCPConnection } from "./MCPConnection.js";
import { MCPTool } from "./MCPTool.js";
import { applyToolFilter, type MCPToolFilterContext, type MCPToolInfo } from "./toolFilter.js";
import { assignToolNames } from "./toolNames.js";

// CrewAI keeps discovered tool schemas for 5 minutes; with cacheToolsList, so does crewts, across
// kickoffs, so a later kickoff connects only when one of the tools is actually called.
const TOOL_LIST_TTL_MS = 5 * 60 * 1000;
const toolListCache = new Map<string, { tools: MCPToolInfo[]; expires: number }>();

/** The agent MCP tools are made for: what dynamic filters and events see of it. */
export interface MCPAgentInfo {
  id: string;
  role: string;
}

/**
 * The MCP connections of one kickoff (or of one agent execution outside a crew): one connection
 * per distinct server, opened when an agent first needs its tools and shared by every agent of the
 * kickoff, all closed by `close()` when the kickoff ends, however it ends. An unreachable server
 * is skipped with one warning (and an mcp_connection_failed event) unless it is `required`.
 */
export class MCPSession {
  private readonly connections = new Map<string, MCPConnection>();
  private readonly listings = new Map<string, Promise<MCPToolInfo[]>>();
  private readonly failures = new Map<string, MCPConnectionError>();
  private readonly warned = new Set<string>();
  private closed = false;

  /** The connections opened so far (their pids show which server processes run). */
  get openConnections(): MCPConnection[] {
    return [...this.connections.values()];
  }

  /**
   * The tools `agent` gets from `references`, filtered per server, named so that none collides with
   * `existing` tools or another server's (colliding names get the server's name as a prefix).
   * Throws MCPConnectionError for an unreachable server marked `required`.
   */
  async toolsFor(references: readonly MCPServerReference[], agent: MCPAgentInfo, existing: readonly BaseTool[] = [], runSource?: EventSource): Promise<BaseTool[]> {
    const configs = references.map((reference) => resolveServerConfig(reference));
    // The run's ids (crew, kickoff, task) let MCP events be told apart per run and traced inside it.
    const source: EventSource = { ...runSource, agentId: agent.id, agentRole: agent.role };
    const listed = await Promise.all(configs.map((config) => this.serverTools(config, agent, source)));
    const entries = listed.flatMap((result, index) => (result ? result.map((info) => ({ config: configs[index]!, info })) : []));
    const names = assignToolNames(
      entries.map(({ config, info }) => ({ serverName: config.name, toolName: info.name })),
      new Set(existing.map((tool) => tool.sanitizedName)),
    );
    return entries.map(({ config, info }, index) => new MCPTool(this.connection(config), info, { name: names[index]!, source }));
  }

  /** Closes every connection (stdio servers stopped, HTTP sessions ended). Never throws; later use fails. */
  async close(): Promise<void> {
    this.closed = true;
    const connections = [...this.connections.values()];
    this.connections.clear();
    this.listings.clear();
    await Promise.all(connections.map((connection) => connection.close()));
  }

  /** The server's tools this agent may use, or undefined when the server is skipped. */
  private async serverTools(config: ResolvedMCPServerConfig, agent: MCPAgentInfo, source: EventSource): Promise<MCPToolInfo[] | undefined> {
    const context: MCPToolFilterContext = { serverName: config.name, agent };
    try {
      return applyToolFilter(await this.listTools(config, source), config.toolFilter, context);
    } catch (error) {
      const failure = error instanceof MCPConnectionError ? error : new MCPConnectionError(config.name, `MCP server "${config.name}" failed to list its tools: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      if (config.required) throw failure;
      this.failures.set(config.key, failure);
      if (!this.warned.has(config.key)) {
        this.warned.add(config.key);
        // One line, once per kickoff: the agent goes on with its other tools, as in CrewAI.
        console.warn(`[crewts] MCP server "${config.name}" skipped, its tools are not available: ${failure.message.split("\n")[0]}`);
      }
      return undefined;
    }
  }

  private listTools(config: ResolvedMCPServerConfig, source: EventSource): Promise<MCPToolInfo[]> {
    const failed = this.failures.get(config.key);
    if (failed) return Promise.reject(failed);
    const cached = config.cacheToolsList ? toolListCache.get(config.key) : undefined;
    if (cached && cached.expires > Date.now()) return Promise.resolve(cached.tools);
    let listing = this.listings.get(config.key);
    if (!listing) {
      listing = this.connection(config).listTools(source);
      this.listings.set(config.key, listing);
      listing.then(
        (tools) => {
          if (config.cacheToolsList) toolListCache.set(config.key, { tools, expires: Date.now() + TOOL_LIST_TTL_MS });
        },
        (error: unknown) => {
          this.listings.delete(config.key);
          if (error instanceof MCPConnectionError) this.failures.set(config.key, error);
        },
      );
    }
    return listing;
  }

  private connection(config: ResolvedMCPServerConfig): MCPConnection {
    if (this.closed) throw new MCPConnectionError(config.name, `The MCP connections of this run are closed; MCP server "${config.name}" cannot be used after the kickoff ended.`);
    let connection = this.connections.get(config.key);
    if (!connection) {
      connection = new MCPConnection(config);
      this.connections.set(config.key, connection);
    }
    return connection;
  }
}

/** Forgets every cached tool list (cacheToolsList), e.g. after a server changed its tools. */
export function clearMCPToolListCache(): void {
  toolListCache.clear();
}
