/** An MCP server config that cannot be used; the message says which field and how to fix it. */
export class MCPConfigError extends Error {
  override name = "MCPConfigError";
}

/** An MCP server could not be reached (or dropped and could not be reached again); names the server and the cause. */
export class MCPConnectionError extends Error {
  override name = "MCPConnectionError";

  constructor(
    /** The server's name (see MCPCommonConfig.name). */
    readonly serverName: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The MCP SDK is not installed; the message gives the install command. */
export class MCPDependencyError extends Error {
  override name = "MCPDependencyError";
}
