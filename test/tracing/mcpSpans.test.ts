import { SpanStatusCode } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { Crew } from "../../src/crew/index.js";
import { eventBus } from "../../src/events/index.js";
import type { DisableTracing } from "../../src/tracing/index.js";
import { action, fakeAgent, final, task } from "../crew/helpers.js";
import { everythingStdio } from "../mcp/servers.js";
import { parentOf, traceToMemory } from "./helpers.js";

let disable: DisableTracing | undefined;
afterEach(async () => {
  await disable?.();
  disable = undefined;
  eventBus.clear();
});

describe("enableTracing: MCP calls", () => {
  it("puts each MCP call in an mcp.call span under its tool.call, and the connection in an mcp.connect span, in the crew's trace", async () => {
    const t = await traceToMemory(true);
    disable = t.disable;
    const { agent } = fakeAgent("Echoer", [action("echo", { message: "traced" }), final("done")], {}, { mcps: [everythingStdio({ name: "everything" })] });
    await new Crew({ agents: [agent], tasks: [task("Echo a word", agent)] }).kickoff();
    const spans = t.spans();
    const call = spans.find((s) => s.name === "mcp.call");
    const connect = spans.find((s) => s.name === "mcp.connect");
    const crew = spans.find((s) => s.name === "crew.kickoff")!;
    expect(call, spans.map((s) => s.name).join(", ")).toBeDefined();
    expect(parentOf(call!, spans)?.name).toBe("tool.call");
    expect(call!.attributes).toMatchObject({ "crewts.mcp.server": "everything", "crewts.mcp.transport": "stdio", "gen_ai.tool.name": "echo" });
    expect(String(call!.attributes["crewts.tool.output"])).toContain("Echo: traced");
    expect(connect).toBeDefined();
    for (const span of [call!, connect!]) expect(span.spanContext().traceId).toBe(crew.spanContext().traceId);
  });

  it("marks a call the MCP tool's own input schema refuses as an error on its tool.call span, and sends nothing to the server", async () => {
    const t = await traceToMemory();
    disable = t.disable;
    const { agent } = fakeAgent("Summer", [action("get_sum", { a: "two", b: 3 }), final("gave up")], {}, { mcps: [everythingStdio({ name: "everything" })] });
    await new Crew({ agents: [agent], tasks: [task("Add", agent)] }).kickoff();
    const spans = t.spans();
    const toolCall = spans.find((s) => s.name === "tool.call");
    expect(toolCall?.status.code, spans.map((s) => `${s.name}:${s.status.code}`).join(", ")).toBe(SpanStatusCode.ERROR);
    expect(spans.filter((s) => s.name === "mcp.call")).toEqual([]);
  });
});
