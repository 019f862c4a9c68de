import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { once } from "node:events";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { MCPStdioConfig } from "../../src/mcp/index.js";

// Real MCP servers nobody here wrote: the reference servers of the MCP project, run with this Node.
const require = createRequire(import.meta.url);
/** server-everything's launcher (argument: stdio | sse | streamableHttp). */
export const EVERYTHING = join(dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist", "index.js");
/** server-filesystem's entry point (arguments: the allowed directories). */
export const FILESYSTEM = join(dirname(require.resolve("@modelcontextprotocol/server-filesystem/package.json")), "dist", "index.js");

/** server-everything over stdio. */
export function everythingStdio(extra: Partial<MCPStdioConfig> = {}): MCPStdioConfig {
  return { transport: "stdio", command: process.execPath, args: [EVERYTHING, "stdio"], ...extra };
}

/** Whether a process with this id is still running. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as { port: number }).port;
  server.close();
  await once(server, "close");
  return port;
}

/** A server-everything process serving HTTP ("streamableHttp" at /mcp or "sse" at /sse), ready when returned. */
export interface HttpServer {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts server-everything over HTTP on a free port and waits for its "listening" line. */
export async function startEverythingHttp(kind: "streamableHttp" | "sse"): Promise<HttpServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, kind], { env: { PATH: process.env.PATH ?? "", PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] });
  await new Promise<void>((resolve, reject) => {
    let output = "";
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening on port|running on port/i.test(output)) resolve();
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => reject(new Error(`server-everything ${kind} exited (${code}): ${output}`)));
  });
  const url = `http://127.0.0.1:${port}/${kind === "sse" ? "sse" : "mcp"}`;
  return {
    url,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGKILL");
      await exited;
    },
  };
}
