import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { isAlive } from "./servers.js";
import { CLI, servedProject } from "./servedProject.js";

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const INSPECTOR = join(dirname(require.resolve("@modelcontextprotocol/inspector-cli/package.json")), "build", "index.js");
// tsx by absolute URL: the project folders live in a temp folder without node_modules.
const serveCommand = ["--import", pathToFileURL(require.resolve("tsx")).href, CLI, "mcp", "serve"];

describe("crewts mcp serve", () => {
  it("serves the crew over stdio to the SDK's client: inputs as arguments, progress per task, no process left", async () => {
    const project = servedProject();
    const transport = new StdioClientTransport({ command: process.execPath, args: serveCommand, cwd: project.dir, stderr: "pipe" });
    transport.stderr?.on("data", () => undefined);
    const client = new Client({ name: "test", version: "1" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(1);
      expect(tools[0]).toMatchObject({
        name: "run_briefing",
        inputSchema: { type: "object", properties: { topic: { type: "string" }, audience: { type: "string", default: "engineers" } }, required: ["topic"] },
      });
      // Counted on the wire: the SDK client hands notifications on a microtask, so one that arrives in
      // the same chunk as the result reaches onprogress after the request is settled and is dropped.
      const onWire: unknown[] = [];
      const deliver = transport.onmessage!;
      transport.onmessage = (message) => {
        if ("method" in message && message.method === "notifications/progress") onWire.push(message.params);
        deliver(message);
      };
      const progress: number[] = [];
      const result = await client.callTool({ name: "run_briefing", arguments: { topic: "MCP" } }, undefined, { onprogress: (p) => void progress.push(p.progress) });
      expect(result.isError).toBeFalsy();
      expect(result.content).toEqual([{ type: "text", text: "Report on MCP for engineers" }]);
      expect(onWire).toEqual([
        { progressToken: expect.anything(), progress: 1, total: 2, message: "Task 1 of 2 completed" },
        { progressToken: expect.anything(), progress: 2, total: 2, message: "Task 2 of 2 completed" },
      ]);
      expect(progress[0]).toBe(1);
    } finally {
      await client.close();
    }
    for (const pid of project.pids()) expect(isAlive(pid)).toBe(false);
  });

  it("serves over streamable HTTP behind a bearer token", async () => {
    const project = servedProject();
    const child = spawn(process.execPath, [...serveCommand, "--transport", "http", "--port", "0"], { cwd: project.dir, env: { ...process.env, CREWTS_SERVER_TOKEN: "serve-token-123456" }, stdio: ["ignore", "pipe", "pipe"] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let text = "";
        child.stderr.on("data", (chunk: Buffer) => {
          text += chunk.toString();
          const found = /listening on (http:\/\/\S+\/mcp)/.exec(text);
          if (found) resolve(found[1]!);
        });
        child.once("exit", (code) => reject(new Error(`serve exited (${code}): ${text}`)));
      });
      const noToken = new Client({ name: "test", version: "1" });
      await expect(noToken.connect(new StreamableHTTPClientTransport(new URL(url)))).rejects.toThrow(/401|Unauthorized/);

      const client = new Client({ name: "test", version: "1" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: "Bearer serve-token-123456" } } }));
      const progress: number[] = [];
      const result = await client.callTool({ name: "run_briefing", arguments: { topic: "HTTP", audience: "managers" } }, undefined, { onprogress: (p) => void progress.push(p.progress) });
      expect(result.content).toEqual([{ type: "text", text: "Report on HTTP for managers" }]);
      expect(progress).toEqual([1, 2]);
      await client.close();
    } finally {
      for (const pid of project.pids()) if (isAlive(pid)) process.kill(pid, "SIGTERM");
      if (child.exitCode === null) await once(child, "exit");
    }
    for (const pid of project.pids()) expect(isAlive(pid)).toBe(false);
  });

  it("answers the MCP inspector's CLI (headless) over stdio", async () => {
    const project = servedProject();
    // inspector-cli 1.0.3 checks for "../package.json" from the working directory but imports it from its
    // own folder: run it one level inside the project so the check passes (crewts finds the project upwards).
    const cwd = join(project.dir, "sub");
    mkdirSync(cwd);
    const listed = await run(process.execPath, [INSPECTOR, process.execPath, ...serveCommand, "--method", "tools/list"], { cwd });
    expect(JSON.parse(listed.stdout)).toMatchObject({ tools: [{ name: "run_briefing" }] });
    const called = await run(process.execPath, [INSPECTOR, process.execPath, ...serveCommand, "--method", "tools/call", "--tool-name", "run_briefing", "--tool-arg", "topic=Inspectors"], { cwd });
    expect(JSON.parse(called.stdout)).toMatchObject({ content: [{ type: "text", text: "Report on Inspectors for engineers" }] });
    for (const pid of project.pids()) expect(isAlive(pid)).toBe(false);
  });
});

describe("serveHttp", () => {
  it("refuses a non-loopback address without a token", async () => {
    const { serveHttp, isLoopback } = await import("../../src/mcp/server/serveTools.js");
    expect(isLoopback("127.0.0.1")).toBe(true);
    expect(isLoopback("::1")).toBe(true);
    expect(isLoopback("0.0.0.0")).toBe(false);
    await expect(serveHttp([], { name: "x", version: "1" }, { port: 0, host: "0.0.0.0" })).rejects.toThrow(/CREWTS_SERVER_TOKEN/);
  });
});

describe("crewts mcp serve --flow", () => {
  it("serves a flow project's kickoff(inputs) as a tool", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crewts-mcp-flow-"));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "served_flow", type: "module", crewts: { entry: "main.ts", type: "flow" } }));
    writeFileSync(join(dir, "main.ts"), `export async function kickoff(inputs: { topic?: string } = {}) { return { poem: "a poem about " + inputs.topic }; }\n`);
    const transport = new StdioClientTransport({ command: process.execPath, args: serveCommand, cwd: dir, stderr: "pipe" });
    transport.stderr?.on("data", () => undefined);
    const client = new Client({ name: "test", version: "1" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["run_served_flow"]);
      const result = await client.callTool({ name: "run_served_flow", arguments: { topic: "rivers" } });
      expect(result.content).toEqual([{ type: "text", text: '{"poem":"a poem about rivers"}' }]);
    } finally {
      await client.close();
    }
  });
});
