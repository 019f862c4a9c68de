import { sanitizeToolName } from "../tools/sanitize.js";

/**
 * The crewts name of each MCP tool: its own name, sanitized, unless that name is taken (by a tool
 * the agent already has, or by a tool of another server), in which case it is prefixed by its
 * server's name ("weather_search"). `taken` holds sanitized names already in use.
 */
export function assignToolNames(tools: readonly { serverName: string; toolName: string }[], taken: ReadonlySet<string> = new Set()): string[] {
  const counts = new Map<string, number>();
  for (const { toolName } of tools) {
    const name = sanitizeToolName(toolName);
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  const used = new Set(taken);
  return tools.map(({ serverName, toolName }) => {
    const plain = sanitizeToolName(toolName);
    let name = plain !== "" && counts.get(plain) === 1 && !used.has(plain) ? plain : sanitizeToolName(`${serverName}_${toolName}`);
    // Still taken (two servers with the same name and tool): number it so every tool stays callable.
    for (let n = 2; used.has(name) || name === ""; n++) name = `${sanitizeToolName(`${serverName}_${toolName}`, 56) || "mcp_tool"}_${n}`;
    used.add(name);
    return name;
  });
}
