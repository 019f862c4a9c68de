import { createHash, timingSafeEqual } from "node:crypto";
import { createWriteStream } from "node:fs";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import { isIP } from "node:net";
import { MCPConfigError } from "../errors.js";
import { createToolServer } from "./createServer.js";
import type { ServedTool } from "./ServedTool.js";

/** Who the server says it is. */
export interface ServerInfo {
  name: string;
  version: string;
}

/**
 * Serves `tools` over stdin/stdout until stdin closes. stdout carries only MCP messages: anything
 * else the process prints (console.log, verbose output) goes to stderr.
 */
export async function serveStdio(tools: readonly ServedTool[], info: ServerInfo): Promise<void> {
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const out = createWriteStream("", { fd: 1, autoClose: false });
  process.stdout.write = process.stderr.write.bind<typeof process.stderr.write>(process.stderr);
  const server = await createToolServer(tools, info);
  const closed = new Promise<void>((resolve) => (server.onclose = resolve));
  process.stdin.once("end", () => void server.close());
  await server.connect(new StdioServerTransport(process.stdin, out));
  await closed;
}

/** Options of serveHttp. */
export interface HttpServeOptions {
  port: number;
  /** Default 127.0.0.1. Any other address needs a token. */
  host?: string;
  /** Bearer token clients must send (Authorization: Bearer <token>). */
  token?: string;
}

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || (isIP(host) === 4 && host.startsWith("127."));
}

/**
 * Serves `tools` over streamable HTTP at POST /mcp (stateless: one server per request, so calls
 * never share state). With a token, every request must carry it as a bearer token (compared in
 * constant time); without one, only a loopback address may be used.
 */
export async function serveHttp(tools: readonly ServedTool[], info: ServerInfo, options: HttpServeOptions): Promise<HttpServer> {
  const host = options.host ?? "127.0.0.1";
  if (!options.token && !isLoopback(host)) {
    throw new MCPConfigError(`Serving on ${host} lets other machines run the crew: set CREWTS_SERVER_TOKEN (or --token) so clients must send it as a bearer token, or serve on 127.0.0.1.`);
  }
  const { StreamableHTTPServerTransport } = await import("@modelcontextprotocol/sdk/server/streamableHttp.js");
  const expected = options.token ? digest(options.token) : undefined;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (path !== "/mcp") return void res.writeHead(404, { "content-type": "text/plain" }).end("Not found: the MCP endpoint is /mcp\n");
    if (expected && !authorized(req.headers.authorization, expected)) {
      return void res.writeHead(401, { "content-type": "text/plain", "www-authenticate": "Bearer" }).end("Unauthorized: send Authorization: Bearer <token>\n");
    }
    if (req.method !== "POST") {
      // Stateless: there is no session to stream to or delete.
      return void res.writeHead(405, { allow: "POST", "content-type": "text/plain" }).end("Method not allowed: POST JSON-RPC messages to /mcp\n");
    }
    const server = await createToolServer(tools, info);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };
  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(`Internal error: ${error instanceof Error ? error.message : String(error)}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port, host, () => resolve());
  });
  return http;
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

// Hashing first gives equal lengths, so timingSafeEqual compares without revealing the token's length.
function authorized(header: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? "");
  return match !== null && timingSafeEqual(digest(match[1]!.trim()), expected);
}
