import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));

describe("the MCP SDK is an optional dependency", () => {
  it("is not loaded by importing crewts, only when a connection opens", async () => {
    // A resolve hook refuses the SDK: importing crewts must succeed; connecting must reach the SDK.
    const script = `
      const crewts = await import("./src/index.ts");
      console.log("imported", typeof crewts.MCPServerAdapter);
      try { await crewts.MCPServerAdapter.connect({ transport: "stdio", command: "true" }); }
      catch (error) { console.log(error.name + ": " + error.message); }
    `;
    const { stdout } = await run(process.execPath, ["--import", "tsx", "--import", "./test/mcp/fixtures/blockMcpSdk.ts", "--input-type=module", "-e", script], { cwd: root });
    expect(stdout).toContain("imported function");
    expect(stdout).toMatch(/MCPConnectionError: Could not connect to MCP server "true" \(true\): MCP SDK loaded: @modelcontextprotocol\/sdk/);
  });
});
