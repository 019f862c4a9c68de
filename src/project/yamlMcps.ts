import { mcpsOption, type MCPServerReference } from "../mcp/config.js";

// `mcps:` under an agent in agents.yaml: URL strings, or maps with CrewAI's snake_case keys
// (tool_filter: { allowed_tool_names, blocked_tool_names }, cache_tools_list, ...). Values may name
// environment variables as ${NAME}, so keys and tokens stay out of the YAML file.

const KEYS: Record<string, string> = {
  tool_filter: "toolFilter",
  allowed_tool_names: "allowedToolNames",
  blocked_tool_names: "blockedToolNames",
  cache_tools_list: "cacheToolsList",
  connect_timeout: "connectTimeout",
  call_timeout: "callTimeout",
  max_result_length: "maxResultLength",
};

/** The `mcps` option of a YAML value, or the problem with it (for ProjectConfigError). */
export function mcpsFromYaml(value: unknown): { mcps: MCPServerReference[] } | { problem: string } {
  if (!Array.isArray(value)) return { problem: 'must be a list of MCP servers, e.g. ["https://host/mcp", { transport: stdio, command: npx, args: [...] }]' };
  let converted: unknown;
  try {
    converted = value.map((entry) => convert(entry, []));
  } catch (error) {
    return { problem: (error as Error).message };
  }
  const parsed = mcpsOption.safeParse(converted);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message));
    return { problem: `has an invalid MCP server: ${problems.join("; ")}` };
  }
  return { mcps: parsed.data };
}

function convert(value: unknown, path: string[]): unknown {
  if (typeof value === "string") return expandEnv(value, path);
  if (Array.isArray(value)) return value.map((item, index) => convert(item, [...path, String(index)]));
  if (typeof value !== "object" || value === null) return value;
  // env and headers are named by the user (API_KEY, Authorization): their keys are kept as written.
  const keepKeys = path.at(-1) === "env" || path.at(-1) === "headers";
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [keepKeys ? key : (KEYS[key] ?? key), convert(item, [...path, key])]));
}

function expandEnv(text: string, path: string[]): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const found = process.env[name];
    if (found === undefined) throw new Error(`names the environment variable ${name} (at ${path.join(".") || "mcps"}), which is not set: set it (e.g. in .env) or write the value`);
    return found;
  });
}
