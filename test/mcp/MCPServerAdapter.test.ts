import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { eventBus, type CrewtsEvent } from "../../src/events/index.js";
import { MCPConfigError, MCPConnectionError, MCPServerAdapter, MCPTool } from "../../src/mcp/index.js";
import { ToolRunner } from "../../src/tools/ToolRunner.js";
import { everythingStdio, FILESYSTEM, isAlive, startEverythingHttp, type HttpServer } from "./servers.js";

const adapters: MCPServerAdapter[] = [];
const servers: HttpServer[] = [];
async function connect(...args: Parameters<typeof MCPServerAdapter.connect>): Promise<MCPServerAdapter> {
  const adapter = await MCPServerAdapter.connect(...args);
  adapters.push(adapter);
  return adapter;
}

afterEach(async () => {
  const pids = adapters.flatMap((a) => a.pids);
  await Promise.all(adapters.splice(0).map((a) => a.close()));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
  // No server process outlives its adapter.
  for (const pid of pids) expect(isAlive(pid)).toBe(false);
});

describe("MCPServerAdapter over stdio (server-everything)", () => {
  it("lists the tools as validated crewts tools, calls them, summarises images and stops the server on close", async () => {
    const adapter = await connect(everythingStdio());
    const [pid] = adapter.pids;
    expect(pid).toBeTypeOf("number");
    expect(isAlive(pid!)).toBe(true);
    const names = adapter.tools.map((t) => t.name);
    expect(names).toContain("get_sum");
    expect(names).toContain("echo");
    const sum = adapter.tool("get-sum");
    expect(sum).toBeInstanceOf(MCPTool);
    expect(sum.argumentsJsonSchema()).toMatchObject({ type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] });

    const runner = new ToolRunner(adapter.tools);
    const bad = await runner.run({ name: "get_sum", arguments: { a: 1, b: "two" } });
    expect(bad.ok).toBe(false);
    expect(bad.output).toContain('b: expected number, got a string ("two")');
    const good = await runner.run({ name: "get_sum", arguments: { a: 2, b: 3 } });
    expect(good).toMatchObject({ ok: true, output: "The sum of 2 and 3 is 5." });
    const image = await runner.run({ name: "get_tiny_image", arguments: {} });
    expect(image.output).toMatch(/\[image \(image\/png, \d+ bytes\) returned by the tool; it cannot be shown as text\]/);
    expect(image.output).not.toMatch(/iVBOR/); // no base64 pasted into the prompt

    await adapter.close();
    expect(isAlive(pid!)).toBe(false);
  });

  it("passes the server only the env it is given plus the SDK's minimal default, never this process's keys", async () => {
    process.env.CREWTS_TEST_SECRET_KEY = "sk-never-passed-1234567890";
    try {
      const adapter = await connect(everythingStdio({ env: { GIVEN_VALUE: "given" } }));
      const env = JSON.parse(String(await adapter.tool("get-env").run({}))) as Record<string, string>;
      expect(env.GIVEN_VALUE).toBe("given");
      expect(env.CREWTS_TEST_SECRET_KEY).toBeUndefined();
      expect(Object.keys(env).sort()).toEqual(expect.arrayContaining(["GIVEN_VALUE", "PATH"]));
      for (const key of Object.keys(env)) expect(["GIVEN_VALUE", "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"]).toContain(key);
    } finally {
      delete process.env.CREWTS_TEST_SECRET_KEY;
    }
  });

  it("applies static and dynamic tool filters and the toolNames option", async () => {
    const staticAdapter = await connect(everythingStdio({ toolFilter: { allowedToolNames: ["echo", "get-sum"], blockedToolNames: ["get-sum"] } }));
    expect(staticAdapter.tools.map((t) => t.name)).toEqual(["echo"]);
    const seen: string[] = [];
    const dynamicAdapter = await connect(
      everythingStdio({
        name: "everything",
        toolFilter: (context, tool) => {
          seen.push(context.serverName);
          return tool.name.startsWith("get-");
        },
      }),
      { toolNames: ["get-sum", "get-env", "echo"] },
    );
    expect(dynamicAdapter.tools.map((t) => t.name).sort()).toEqual(["get_env", "get_sum"]);
    expect(new Set(seen)).toEqual(new Set(["everything"]));
  });

  it("prefixes colliding tool names with the server name", async () => {
    const adapter = await connect([everythingStdio({ name: "first" }), everythingStdio({ name: "second", args: [everythingStdio().args![0]!, "stdio", "--second"] })]);
    const names = adapter.tools.map((t) => t.name);
    expect(names).toContain("first_echo");
    expect(names).toContain("second_echo");
    expect(names).not.toContain("echo");
    expect(adapter.pids).toHaveLength(2);
    expect(await adapter.tool("second_echo").run({ message: "hi" })).toBe("Echo: hi");
  });

  it("cuts long results with a note saying how much was left out", async () => {
    const adapter = await connect(everythingStdio({ maxResultLength: 100 }));
    const output = String(await adapter.tool("echo").run({ message: "x".repeat(500) }));
    expect(output).toContain("[output truncated: showing the first 100 of 506 characters]");
    expect(output.length).toBeLessThan(200);
  });

  it("throws MCPConnectionError naming the server when the command cannot start, leaving no process", async () => {
    const failed: CrewtsEvent<"mcp_connection_failed">[] = [];
    const off = eventBus.on("mcp_connection_failed", (e) => void failed.push(e));
    try {
      const error = await MCPServerAdapter.connect({ transport: "stdio", command: "/nonexistent/mcp-server", name: "ghost" }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MCPConnectionError);
      expect((error as MCPConnectionError).serverName).toBe("ghost");
      expect((error as Error).message).toContain('MCP server "ghost"');
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatchObject({ serverName: "ghost", transport: "stdio" });
    } finally {
      off();
    }
  });

  it("rejects a broken config with MCPConfigError", async () => {
    await expect(MCPServerAdapter.connect({ transport: "stdio", command: "" })).rejects.toThrow(MCPConfigError);
    await expect(MCPServerAdapter.connect("ftp://example.com/mcp")).rejects.toThrow(/http:\/\/ or https:\/\/ URL/);
  });
});

describe("MCPServerAdapter over HTTP (server-everything)", () => {
  it("talks streamable HTTP, headers never reach events", async () => {
    const server = await startEverythingHttp("streamableHttp");
    servers.push(server);
    const events: CrewtsEvent[] = [];
    const offs = (["mcp_connection_started", "mcp_connection_completed", "mcp_tool_execution_started", "mcp_tool_execution_completed"] as const).map((t) => eventBus.on(t, (e) => void events.push(e)));
    try {
      const adapter = await connect({ transport: "http", url: `${server.url}?api_key=sk-query-secret-123456`, headers: { "X-Token": "header-secret-value-123" } });
      expect(adapter.pids).toEqual([]);
      expect(await adapter.tool("get-sum").run({ a: 40, b: 2 })).toBe("The sum of 40 and 2 is 42.");
    } finally {
      for (const off of offs) off();
    }
    expect(events.map((e) => e.type)).toEqual(["mcp_connection_started", "mcp_connection_completed", "mcp_tool_execution_started", "mcp_tool_execution_completed"]);
    expect(events[0]).toMatchObject({ serverName: "127_0_0_1_" + new URL(server.url).port, transport: "http", server: server.url });
    const text = JSON.stringify(events);
    expect(text).not.toContain("header-secret-value-123");
    expect(text).not.toContain("sk-query-secret-123456");
  });

  it("talks SSE and takes the URL string form with #tool_name", async () => {
    const sse = await startEverythingHttp("sse");
    servers.push(sse);
    const sseAdapter = await connect({ transport: "sse", url: sse.url, name: "sse_server" });
    expect(await sseAdapter.tool("echo").run({ message: "over sse" })).toBe("Echo: over sse");

    const http = await startEverythingHttp("streamableHttp");
    servers.push(http);
    const one = await connect(`${http.url}#get-sum`);
    expect(one.tools.map((t) => t.name)).toEqual(["get_sum"]);
  });

  it("fails with MCPConnectionError when nothing listens", async () => {
    const error = await MCPServerAdapter.connect({ transport: "http", url: "http://127.0.0.1:9/mcp", connectTimeout: 5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MCPConnectionError);
    expect((error as Error).message).toContain('Could not connect to MCP server "127_0_0_1_9"');
  });
});

describe("MCPServerAdapter with server-filesystem", () => {
  it("reads files inside the allowed folder and reports the server's refusal outside it", async () => {
    const root = mkdtempSync(join(tmpdir(), "crewts-mcp-fs-"));
    writeFileSync(join(root, "notes.txt"), "hello from the filesystem server");
    const adapter = await connect({ transport: "stdio", command: process.execPath, args: [FILESYSTEM, root] });
    expect(adapter.tools.map((t) => t.name)).toEqual(expect.arrayContaining(["read_text_file", "list_directory", "write_file"]));
    const runner = new ToolRunner(adapter.tools);
    const listing = await runner.run({ name: "list_directory", arguments: { path: root } });
    expect(listing.output).toContain("notes.txt");
    const read = await runner.run({ name: "read_text_file", arguments: { path: join(root, "notes.txt") } });
    expect(read.output).toBe("hello from the filesystem server");
    const outside = await runner.run({ name: "read_text_file", arguments: { path: "/etc/hostname" } });
    expect(outside.output).toMatch(/reported an error: .*(denied|outside|not allowed)/i);
  });
});
