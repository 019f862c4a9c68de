import { performance } from "node:perf_hooks";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { eventBus } from "../events/EventBus.js";
import type { EventPayloads, EventSource, EventType, MCPEventFields } from "../events/types.js";
import { redactSecrets } from "../llm/redact.js";
import { describeServer, type ResolvedMCPServerConfig } from "./config.js";
import { MCPConnectionError } from "./errors.js";
import type { MCPCallResult } from "./resultText.js";
import { loadClientSdk, type MCPClientSdk } from "./sdk.js";
import type { MCPToolInfo } from "./toolFilter.js";

const CLIENT_INFO = { name: "crewts", version: "1" };
// The last lines a stdio server wrote to stderr go into the error when it fails to start.
const STDERR_TAIL_CHARS = 2000;
// How long closing a streamable HTTP session (DELETE) may take before the socket is dropped anyway.
const TERMINATE_TIMEOUT_MS = 2000;

/**
 * One connection to one MCP server over the official SDK: opened on first use, reopened once when
 * a call finds it dropped, closed by its owner (a kickoff's MCPSession or an MCPServerAdapter).
 * Connection failures throw MCPConnectionError naming the server; secrets (headers, env, URL
 * query) never reach events or messages.
 */
export class MCPConnection {
  private client: Client | undefined;
  private transport: Transport | undefined;
  private opening: Promise<Client> | undefined;
  private closing: Promise<void> | undefined;
  private dropped = false;
  private everOpened = false;
  private stderrTail = "";
  private readonly fields: MCPEventFields;

  constructor(readonly config: ResolvedMCPServerConfig) {
    this.fields = { serverName: config.name, transport: config.transport, server: this.redact(describeServer(config)) };
  }

  /** The server's name (from the config, or derived from its command or URL). */
  get serverName(): string {
    return this.config.name;
  }

  /** The process id of a running stdio server (undefined for HTTP servers and when not running). */
  get pid(): number | undefined {
    const transport = this.transport as { pid?: number | null } | undefined;
    return transport?.pid ?? undefined;
  }

  /** Whether the connection is open and has not dropped. */
  get isOpen(): boolean {
    return this.client !== undefined && !this.dropped;
  }

  /** Opens the connection unless it is open; concurrent callers share one attempt. */
  async open(source: EventSource = {}): Promise<void> {
    await this.connected(source);
  }

  /** Every tool of the server (all pages of tools/list). */
  async listTools(source: EventSource = {}): Promise<MCPToolInfo[]> {
    const client = await this.connected(source);
    const tools: MCPToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: this.config.connectTimeout * 1000 });
      for (const tool of page.tools) {
        tools.push({ name: tool.name, ...(tool.description !== undefined ? { description: tool.description } : {}), inputSchema: tool.inputSchema });
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  }

  /**
   * Calls a tool with the call timeout. A connection found dropped is reopened once first; a
   * connection lost during the call fails the call (it may have had effects, so it is not resent).
   */
  async callTool(name: string, args: Record<string, unknown>, source: EventSource = {}): Promise<MCPCallResult> {
    const client = await this.connected(source);
    try {
      return (await client.callTool({ name, arguments: args }, undefined, { timeout: this.config.callTimeout * 1000 }));
    } catch (error) {
      if (this.dropped) {
        throw new MCPConnectionError(this.serverName, `The connection to MCP server "${this.serverName}" was lost during the call to "${name}": ${this.errorText(error)}`, { cause: error });
      }
      const code = (error as { code?: unknown }).code;
      // The SDK's RequestTimeout code; its message names neither the tool nor the setting to change.
      if (code === -32001) {
        throw new Error(`The MCP tool "${name}" of server "${this.serverName}" did not answer within ${this.config.callTimeout} s (callTimeout).`, { cause: error });
      }
      throw new Error(this.errorText(error), { cause: error });
    }
  }

  /** Closes the connection: a stdio server's process is ended, an HTTP session is terminated. Never throws. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async connected(source: EventSource): Promise<Client> {
    if (this.closing) throw new MCPConnectionError(this.serverName, `The connection to MCP server "${this.serverName}" is closed.`);
    if (this.client && !this.dropped) return this.client;
    this.opening ??= this.connect(source).finally(() => (this.opening = undefined));
    return this.opening;
  }

  private async connect(source: EventSource): Promise<Client> {
    const reconnect = this.everOpened;
    if (this.client) await this.release();
    const started = performance.now();
    this.emit("mcp_connection_started", () => ({ ...source, ...this.fields }));
    let transport: Transport | undefined;
    let timer: NodeJS.Timeout | undefined;
    try {
      const sdk = await loadClientSdk();
      transport = this.createTransport(sdk);
      const client = new sdk.Client(CLIENT_INFO, { capabilities: {} });
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${this.config.connectTimeout} s (connectTimeout)`)), this.config.connectTimeout * 1000);
      });
      await Promise.race([client.connect(transport, { timeout: this.config.connectTimeout * 1000 }), timeout]);
      client.onclose = () => {
        if (this.client === client) this.dropped = true;
      };
      this.client = client;
      this.transport = transport;
      this.dropped = false;
      this.everOpened = true;
      this.emit("mcp_connection_completed", () => {
        const pid = this.pid;
        return { ...source, ...this.fields, durationMs: performance.now() - started, reconnect, ...(pid !== undefined ? { pid } : {}) };
      });
      return client;
    } catch (error) {
      // A half-open transport would leave a child process or socket behind.
      await transport?.close().catch(() => undefined);
      const reason = this.errorText(error) + this.stderrNote();
      this.emit("mcp_connection_failed", () => ({ ...source, ...this.fields, error: reason, durationMs: performance.now() - started }));
      if (error instanceof MCPConnectionError) throw error;
      throw new MCPConnectionError(this.serverName, `Could not connect to MCP server "${this.serverName}" (${this.fields.server}): ${reason}`, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  private createTransport(sdk: MCPClientSdk): Transport {
    const config = this.config;
    if (config.transport === "stdio") {
      // No shell: the SDK spawns `command` with `args` as given. The environment is the SDK's minimal
      // default (getDefaultEnvironment: HOME, LOGNAME, PATH, SHELL, TERM, USER) plus `env`; nothing
      // else of this process's environment (API keys) reaches the server.
      const transport = new sdk.StdioClientTransport({
        command: config.command,
        args: config.args ?? [],
        ...(config.env ? { env: config.env } : {}),
        ...(config.cwd ? { cwd: config.cwd } : {}),
        stderr: "pipe",
      });
      // Read, or a chatty server would block once the pipe fills; the tail explains start-up failures.
      transport.stderr?.on("data", (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
      });
      return transport;
    }
    const requestInit = config.headers ? { headers: { ...config.headers } } : undefined;
    const url = new URL(config.url);
    if (config.transport === "sse") return new sdk.SSEClientTransport(url, requestInit ? { requestInit } : {});
    return new sdk.StreamableHTTPClientTransport(url, requestInit ? { requestInit } : {});
  }

  private async shutdown(): Promise<void> {
    const pending = this.opening;
    if (pending) await pending.catch(() => undefined);
    await this.release();
  }

  private async release(): Promise<void> {
    const client = this.client;
    // Only the streamable HTTP transport has sessions to terminate.
    const transport: { terminateSession?: () => Promise<void>; sessionId?: string | undefined } | undefined = this.transport;
    this.client = undefined;
    this.transport = undefined;
    if (!client) return;
    client.onclose = undefined;
    if (transport?.terminateSession && transport.sessionId !== undefined && !this.dropped) {
      // Streamable HTTP: tell the server the session is over (DELETE), bounded so a dead server cannot hold the close.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        transport.terminateSession().catch(() => undefined),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, TERMINATE_TIMEOUT_MS))),
      ]);
      clearTimeout(timer);
    }
    // Client.close closes the transport: stdin ended, then SIGTERM and SIGKILL if the process stays.
    await client.close().catch(() => undefined);
  }

  private stderrNote(): string {
    const tail = this.stderrTail.trim();
    return tail ? `\nThe server wrote: ${this.redact(tail.slice(-500))}` : "";
  }

  private errorText(error: unknown): string {
    const text = error instanceof Error ? error.message || error.name : String(error);
    return this.redact(text);
  }

  // Header values, env values and a URL query may hold keys; none of them may reach a message or event.
  private redact(text: string): string {
    const config = this.config;
    const secrets: string[] = [];
    if (config.transport === "stdio") secrets.push(...Object.values(config.env ?? {}));
    else {
      secrets.push(...Object.values(config.headers ?? {}));
      const url = new URL(config.url);
      if (url.search) secrets.push(config.url, url.search.slice(1), ...[...url.searchParams.values()]);
    }
    return redactSecrets(text, secrets);
  }

  private emit<K extends EventType>(type: K, build: () => EventPayloads[K]): void {
    if (eventBus.hasListeners(type)) eventBus.emit(type, build());
  }

  /** Emits an MCP tool event with this server's fields (used by MCPTool). */
  emitToolEvent<K extends "mcp_tool_execution_started" | "mcp_tool_execution_completed" | "mcp_tool_execution_failed">(
    type: K,
    build: (fields: MCPEventFields) => EventPayloads[K],
  ): void {
    if (eventBus.hasListeners(type)) eventBus.emit(type, build(this.fields));
  }

  /** Removes the server's secrets from a text. */
  redactText(text: string): string {
    return this.redact(text);
  }
}
