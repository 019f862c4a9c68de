import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { redactSecrets } from "../../llm/redact.js";
import { MCPDependencyError } from "../errors.js";
import { missingSdk } from "../sdk.js";
import type { ServedTool } from "./ServedTool.js";

/**
 * An MCP server (the SDK's low-level Server) offering `tools`: tools/list describes them,
 * tools/call runs one and sends progress notifications when the request carries a progressToken.
 * A failing run answers with an error result (isError) whose text says what went wrong.
 */
export async function createToolServer(tools: readonly ServedTool[], info: { name: string; version: string }): Promise<Server> {
  const [{ Server: ServerClass }, types] = await Promise.all([import("@modelcontextprotocol/sdk/server/index.js"), import("@modelcontextprotocol/sdk/types.js")]).catch((error: unknown) => {
    const failure = missingSdk(error);
    throw failure instanceof MCPDependencyError ? failure : error;
  });
  const server = new ServerClass(info, { capabilities: { tools: {} } });
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  server.setRequestHandler(types.ListToolsRequestSchema, () => ({
    tools: tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema as { type: "object" } })),
  }));
  server.setRequestHandler(types.CallToolRequestSchema, async (request, extra) => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      return { isError: true, content: [{ type: "text" as const, text: `Unknown tool "${request.params.name}". Tools: ${[...byName.keys()].join(", ")}.` }] };
    }
    const token = request.params._meta?.progressToken;
    const sending: Promise<unknown>[] = [];
    const progress = (done: number, total: number | undefined, message: string): void => {
      if (token === undefined) return;
      // A client that went away cannot take the notification; the run goes on regardless.
      const params = { progressToken: token, progress: done, ...(total !== undefined ? { total } : {}), message };
      sending.push(extra.sendNotification({ method: "notifications/progress", params }).catch(() => undefined));
    };
    try {
      const text = await tool.run(request.params.arguments ?? {}, progress);
      return { content: [{ type: "text" as const, text }] };
    } catch (error) {
      return { isError: true, content: [{ type: "text" as const, text: redactSecrets(error instanceof Error ? `${error.name}: ${error.message}` : String(error)) }] };
    } finally {
      // Clients stop listening for a request's progress once its result arrives: send it all first.
      await Promise.all(sending);
    }
  });
  return server;
}
