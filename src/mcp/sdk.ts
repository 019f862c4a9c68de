import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { MCPDependencyError } from "./errors.js";

// The MCP SDK is an optional peer dependency: it is imported the first time a connection opens,
// never when crewts itself is imported.

/** The parts of @modelcontextprotocol/sdk the client uses. */
export interface MCPClientSdk {
  Client: typeof Client;
  StdioClientTransport: typeof StdioClientTransport;
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  SSEClientTransport: typeof SSEClientTransport;
}

let loading: Promise<MCPClientSdk> | undefined;

/** Loads the SDK's client side once; throws MCPDependencyError with the install command when it is missing. */
export function loadClientSdk(): Promise<MCPClientSdk> {
  loading ??= (async () => {
    try {
      const [client, stdio, http, sse] = await Promise.all([
        import("@modelcontextprotocol/sdk/client/index.js"),
        import("@modelcontextprotocol/sdk/client/stdio.js"),
        import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
        import("@modelcontextprotocol/sdk/client/sse.js"),
      ]);
      return {
        Client: client.Client,
        StdioClientTransport: stdio.StdioClientTransport,
        StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
        SSEClientTransport: sse.SSEClientTransport,
      };
    } catch (error) {
      loading = undefined;
      throw missingSdk(error);
    }
  })();
  return loading;
}

/** The error for a failed SDK import: MCPDependencyError when the package is not installed, else the error itself. */
export function missingSdk(error: unknown): Error {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
    return new MCPDependencyError(
      "MCP needs the official SDK, an optional dependency of crewts: run `npm install @modelcontextprotocol/sdk` in your project.",
      { cause: error },
    );
  }
  return error instanceof Error ? error : new Error(String(error));
}
