import { z } from "zod";
import { sanitizeToolName } from "../tools/sanitize.js";
import { MCPConfigError } from "./errors.js";
import { toolFilterOption, type MCPToolFilter } from "./toolFilter.js";

/** Options every MCP server config shares. */
export interface MCPCommonConfig {
  /** Name used in events, warnings and as the prefix of colliding tool names (default: derived from the command or URL). */
  name?: string;
  /** Which of the server's tools the agent gets: a static filter or a function of (context, tool). */
  toolFilter?: MCPToolFilter;
  /** Keep the server's tool list for 5 minutes across kickoffs, so later kickoffs connect only when a tool is called (default false). */
  cacheToolsList?: boolean;
  /** With true, a server that cannot be reached fails the kickoff (MCPConnectionError) instead of being skipped with a warning. */
  required?: boolean;
  /** Seconds to wait for the connection and the tool list (default 30). */
  connectTimeout?: number;
  /** Seconds one tool call may take (default 60). */
  callTimeout?: number;
  /** Longest tool result (characters) the model gets; longer results are cut with a note (default 20000). */
  maxResultLength?: number;
}

/** A local server started as a child process, spoken to over stdin/stdout (no shell). */
export interface MCPStdioConfig extends MCPCommonConfig {
  transport: "stdio";
  command: string;
  args?: string[];
  /**
   * Environment of the server, added to the SDK's minimal default (HOME, LOGNAME, PATH, SHELL, TERM,
   * USER on POSIX): nothing else of this process's environment is passed on.
   */
  env?: Record<string, string>;
  /** Working directory of the server (default: this process's). */
  cwd?: string;
}

/** A remote server over streamable HTTP ("http") or the older HTTP+SSE transport ("sse"). */
export interface MCPHttpConfig extends MCPCommonConfig {
  transport: "http" | "sse";
  url: string;
  /** Sent with every request, e.g. { Authorization: "Bearer ..." }; never logged. */
  headers?: Record<string, string>;
}

/** One MCP server, as written in `mcps` or given to `MCPServerAdapter.connect`. */
export type MCPServerConfig = MCPStdioConfig | MCPHttpConfig;

/** An entry of an agent's `mcps`: a streamable HTTP URL (`https://host/mcp#tool_name` keeps one tool) or a config object. */
export type MCPServerReference = string | MCPServerConfig;

/** A config with every default filled in and its name settled. */
export type ResolvedMCPServerConfig = MCPServerConfig & {
  name: string;
  connectTimeout: number;
  callTimeout: number;
  maxResultLength: number;
  /** Identifies the server for sharing one connection between agents (never shown: it may hold secrets). */
  key: string;
};

export const DEFAULT_CONNECT_TIMEOUT_SECONDS = 30;
export const DEFAULT_CALL_TIMEOUT_SECONDS = 60;
export const DEFAULT_MAX_RESULT_LENGTH = 20_000;

const seconds = z.number().positive().max(86_400);
const common = {
  name: z.string().min(1).optional(),
  toolFilter: toolFilterOption.optional(),
  cacheToolsList: z.boolean().optional(),
  required: z.boolean().optional(),
  connectTimeout: seconds.optional(),
  callTimeout: seconds.optional(),
  maxResultLength: z.number().int().min(100).optional(),
};
const stringRecord = z.record(z.string(), z.string());
const httpUrl = z.string().refine((value) => {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}, "must be an http:// or https:// URL");

const stdioSchema = z
  .object({
    transport: z.literal("stdio"),
    command: z.string().min(1, "command is required: the program that starts the server, e.g. \"npx\""),
    args: z.array(z.string()).optional(),
    env: stringRecord.optional(),
    cwd: z.string().min(1).optional(),
    ...common,
  })
  .strict();
const httpSchema = z
  .object({ transport: z.enum(["http", "sse"]), url: httpUrl, headers: stringRecord.optional(), ...common })
  .strict();

/** Validates one `mcps` entry (used by Agent options and the YAML loader); each problem names its field. */
export const mcpServerReferenceSchema = z.unknown().superRefine((value, ctx) => {
  // Checked against the one shape the entry means, so errors name real fields instead of "Invalid input".
  const transport = typeof value === "object" && value !== null ? (value as { transport?: unknown }).transport : undefined;
  const schema = typeof value === "string" ? httpUrl : transport === "stdio" ? stdioSchema : transport === "http" || transport === "sse" ? httpSchema : undefined;
  if (!schema) {
    ctx.addIssue({ code: "custom", message: 'must be a URL string or an object with transport "stdio", "http" or "sse"' });
    return;
  }
  const result = schema.safeParse(value);
  if (!result.success) for (const issue of result.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
}) as unknown as z.ZodType<MCPServerReference>;

/** Validates a whole `mcps` list. */
export const mcpsOption = z.array(mcpServerReferenceSchema);

/** Turns a reference into a checked config with defaults; throws MCPConfigError naming the problem. */
export function resolveServerConfig(reference: MCPServerReference): ResolvedMCPServerConfig {
  const parsed = mcpServerReferenceSchema.safeParse(reference);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message));
    throw new MCPConfigError(
      `Invalid MCP server config: ${problems.join("; ")}. Use a URL string ("https://host/mcp"), ` +
        `{ transport: "stdio", command, args } or { transport: "http" | "sse", url }.`,
    );
  }
  const config: MCPServerConfig = typeof reference === "string" ? fromUrlString(reference) : { ...reference };
  const name = config.name ?? defaultServerName(config);
  return {
    ...config,
    name,
    connectTimeout: config.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT_SECONDS,
    callTimeout: config.callTimeout ?? DEFAULT_CALL_TIMEOUT_SECONDS,
    maxResultLength: config.maxResultLength ?? DEFAULT_MAX_RESULT_LENGTH,
    key: connectionKey(config),
  };
}

// CrewAI's string form: the URL of a streamable HTTP server, and `#tool_name` to keep only that tool.
function fromUrlString(reference: string): MCPHttpConfig {
  const url = new URL(reference);
  const tool = decodeURIComponent(url.hash.slice(1));
  url.hash = "";
  const config: MCPHttpConfig = { transport: "http", url: url.toString() };
  if (tool) config.toolFilter = { allowedToolNames: [tool] };
  return config;
}

/** The name of a server when its config gives none: the host of a URL, the package or program of a command. */
export function defaultServerName(config: MCPServerConfig): string {
  if (config.transport !== "stdio") {
    const url = new URL(config.url);
    return sanitizeToolName(url.port ? `${url.hostname}_${url.port}` : url.hostname) || "mcp";
  }
  // "npx -y @scope/server-x" names the server after its package; "node dist/server.js" after its file.
  const words = [config.command, ...(config.args ?? [])].filter((w) => !w.startsWith("-"));
  const candidate = words.length > 1 && /^(npx|node|uvx|python3?|bunx?|deno|pnpm|yarn|tsx)$/.test(baseName(config.command)) ? words[words.length - 1]! : config.command;
  const base = baseName(candidate).replace(/\.(m?js|cjs|ts|py)$/, "");
  return sanitizeToolName(base === "index" ? baseName(candidate.replace(/\/[^/]*$/, "")) : base) || "mcp";
}

function baseName(path: string): string {
  const trimmed = path.replace(/[/\\]+$/, "");
  return trimmed.slice(Math.max(trimmed.lastIndexOf("/"), trimmed.lastIndexOf("\\")) + 1);
}

function connectionKey(config: MCPServerConfig): string {
  if (config.transport === "stdio") {
    return JSON.stringify(["stdio", config.command, config.args ?? [], config.env ?? {}, config.cwd ?? ""]);
  }
  return JSON.stringify([config.transport, config.url, config.headers ?? {}]);
}

/** Where a server is, for events and messages: the URL without its query (which may hold keys), or the command. */
export function describeServer(config: MCPServerConfig): string {
  if (config.transport === "stdio") return [config.command, ...(config.args ?? [])].join(" ");
  const url = new URL(config.url);
  return `${url.origin}${url.pathname}`;
}
