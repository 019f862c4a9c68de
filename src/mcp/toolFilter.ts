import { z } from "zod";

/** What a server says about one of its tools, as a filter sees it. */
export interface MCPToolInfo {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** Who asks for the tools: the server and, inside a kickoff, the agent (CrewAI's ToolFilterContext). */
export interface MCPToolFilterContext {
  serverName: string;
  /** The agent the tools are for; absent for MCPServerAdapter.connect. */
  agent?: { id: string; role: string };
}

/** Allow and block lists of tool names (as the server names them); blocked wins. */
export interface MCPStaticToolFilter {
  allowedToolNames?: string[];
  blockedToolNames?: string[];
}

/** Decides per tool, knowing the agent and server: true keeps the tool. */
export type MCPDynamicToolFilter = (context: MCPToolFilterContext, tool: MCPToolInfo) => boolean;

/** A static filter (lists of names) or a dynamic one (a function). */
export type MCPToolFilter = MCPStaticToolFilter | MCPDynamicToolFilter;

/** Validates a toolFilter option. */
export const toolFilterOption = z.union([
  z.custom<MCPDynamicToolFilter>((v) => typeof v === "function", "must be a function (context, tool) => boolean"),
  z.object({ allowedToolNames: z.array(z.string()).optional(), blockedToolNames: z.array(z.string()).optional() }).strict(),
]);

/** A static filter keeping `allowedToolNames` (all when omitted) minus `blockedToolNames` (CrewAI's create_static_tool_filter). */
export function createStaticToolFilter(filter: MCPStaticToolFilter): MCPStaticToolFilter {
  return { ...filter };
}

/** A dynamic filter (CrewAI's create_dynamic_tool_filter); any (context, tool) => boolean function also works as is. */
export function createDynamicToolFilter(filter: MCPDynamicToolFilter): MCPDynamicToolFilter {
  return filter;
}

/** The tools `filter` keeps, in the server's order. A filter that throws drops the tool (and says so once per tool). */
export function applyToolFilter<T extends MCPToolInfo>(tools: readonly T[], filter: MCPToolFilter | undefined, context: MCPToolFilterContext): T[] {
  if (!filter) return [...tools];
  if (typeof filter === "function") {
    return tools.filter((tool) => {
      try {
        return filter(context, tool) === true;
      } catch (error) {
        console.warn(`[crewts] MCP tool filter of server "${context.serverName}" threw for tool "${tool.name}", tool left out: ${error instanceof Error ? error.message : String(error)}`);
        return false;
      }
    });
  }
  const allowed = filter.allowedToolNames ? new Set(filter.allowedToolNames) : undefined;
  const blocked = new Set(filter.blockedToolNames ?? []);
  return tools.filter((tool) => (!allowed || allowed.has(tool.name)) && !blocked.has(tool.name));
}
