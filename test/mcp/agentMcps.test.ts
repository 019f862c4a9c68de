import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Crew } from "../../src/crew/index.js";
import { eventBus, type CrewtsEvent } from "../../src/events/index.js";
import { MCPConnectionError } from "../../src/mcp/index.js";
import { action, allText, fakeAgent, final, task } from "../crew/helpers.js";
import { everythingStdio, isAlive } from "./servers.js";

// Every server process a test starts, from the connection events; none may outlive its kickoff.
let pids: number[] = [];
let events: CrewtsEvent[] = [];
let offs: (() => void)[] = [];
beforeEach(() => {
  pids = [];
  events = [];
  offs = (
    ["mcp_connection_started", "mcp_connection_completed", "mcp_connection_failed", "mcp_tool_execution_started", "mcp_tool_execution_completed", "mcp_tool_execution_failed"] as const
  ).map((type) =>
    eventBus.on(type, (event) => {
      events.push(event);
      if (event.type === "mcp_connection_completed" && event.pid !== undefined) pids.push(event.pid);
    }),
  );
});
afterEach(() => {
  for (const off of offs) off();
  for (const pid of pids) expect(isAlive(pid), `MCP server process ${pid} left running`).toBe(false);
});

const types = () => events.map((e) => e.type);

describe("agents with mcps in a crew", () => {
  it("calls an MCP tool with native tool calls (functionCalling true) and closes the server when the kickoff ends", async () => {
    const { agent, llm } = fakeAgent("Calculator", [{ toolCalls: [{ name: "get_sum", arguments: { a: 2, b: 3 } }] }, "The sum is 5"], { functionCalling: true }, { mcps: [everythingStdio({ name: "everything" })] });
    const crew = new Crew({ agents: [agent], tasks: [task("Add 2 and 3", agent)] });
    const output = await crew.kickoff();
    expect(output.raw).toBe("The sum is 5");
    expect(llm.calls[0]!.options.tools?.map((t) => t.name)).toContain("get_sum");
    expect(allText(llm, 1)).toContain("The sum of 2 and 3 is 5.");
    expect(pids).toHaveLength(1);
    expect(types()).toEqual(["mcp_connection_started", "mcp_connection_completed", "mcp_tool_execution_started", "mcp_tool_execution_completed"]);
    expect(events[2]).toMatchObject({ serverName: "everything", toolName: "get-sum", agentRole: "Calculator", toolArgs: { a: 2, b: 3 } });
  });

  it("calls an MCP tool through the text protocol (functionCalling false); two agents share one connection", async () => {
    const mcps = [everythingStdio()];
    const first = fakeAgent("First", [action("echo", { message: "one" }), final("first done")], {}, { mcps });
    const second = fakeAgent("Second", [action("get_sum", { a: 1, b: 1 }), final("second done")], {}, { mcps });
    const crew = new Crew({ agents: [first.agent, second.agent], tasks: [task("Echo", first.agent), task("Sum", second.agent)] });
    const output = await crew.kickoff();
    expect(output.raw).toBe("second done");
    expect(allText(first.llm, 0)).toContain("Tool Name: echo");
    expect(allText(first.llm, 1)).toContain("Echo: one");
    expect(allText(second.llm, 1)).toContain("The sum of 1 and 1 is 2.");
    expect(types().filter((t) => t === "mcp_connection_started")).toHaveLength(1);
  });

  it("skips an unreachable server with one warning line and an event naming it; the agent goes on with the others", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      const { agent, llm } = fakeAgent("Worker", [action("echo", { message: "still here" }), final("done"), final("second task done")], {}, {
        mcps: ["http://127.0.0.1:9/mcp", everythingStdio()],
      });
      const crew = new Crew({ agents: [agent], tasks: [task("One", agent), task("Two", agent)] });
      expect((await crew.kickoff()).raw).toBe("second task done");
      expect(allText(llm, 1)).toContain("Echo: still here");
      const warnings = warn.mock.calls.map((c) => String(c[0])).filter((w) => w.includes("MCP server"));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^\[crewts\] MCP server "127_0_0_1_9" skipped/);
      expect(warnings[0]).not.toContain("\n");
      const failed = events.filter((e) => e.type === "mcp_connection_failed");
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatchObject({ serverName: "127_0_0_1_9", transport: "http" });
    } finally {
      warn.mockRestore();
    }
  });

  it("fails the kickoff with MCPConnectionError naming a required server, and stops the servers it started", async () => {
    const { agent } = fakeAgent("Worker", [final("never")], {}, {
      mcps: [everythingStdio(), { transport: "stdio", command: "/nonexistent/server", name: "needed", required: true }],
    });
    const crew = new Crew({ agents: [agent], tasks: [task("One", agent)] });
    const error = await crew.kickoff().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MCPConnectionError);
    expect((error as MCPConnectionError).serverName).toBe("needed");
    expect((error as Error).message).toContain('MCP server "needed"');
  });

  it("closes the connections when the kickoff fails", async () => {
    const { agent } = fakeAgent("Worker", [action("echo", { message: "x" }), new Error("model down")], {}, { mcps: [everythingStdio()], maxRetryLimit: 0 });
    const crew = new Crew({ agents: [agent], tasks: [task("One", agent)] });
    await expect(crew.kickoff()).rejects.toThrow("model down");
    expect(pids.length).toBeGreaterThan(0);
  });

  it("a server killed mid-call (SIGKILL): the call fails as an observation, the run goes on, no process is left", async () => {
    // Every attempt (the first, and the retries on a reconnected server) loses its server mid-call.
    // setImmediate: after the request has been written, while the client waits for the answer.
    const kill = (pid: number) => setImmediate(() => process.kill(pid, "SIGKILL"));
    const killOnCall = eventBus.on("mcp_tool_execution_started", () => {
      const pid = pids.at(-1)!;
      if (isAlive(pid)) return void kill(pid);
      // The previous server is gone: the call reconnects first, and loses the new server too.
      const off = eventBus.on("mcp_connection_completed", (event) => {
        off();
        kill(event.pid!);
      });
    });
    try {
      const { agent, llm } = fakeAgent("Worker", [action("trigger_long_running_operation", { duration: 5, steps: 5 }), final("went on without it")], {}, { mcps: [everythingStdio({ name: "fragile" })] });
      const crew = new Crew({ agents: [agent], tasks: [task("One", agent)] });
      const output = await crew.kickoff();
      expect(output.raw).toBe("went on without it");
      const observation = allText(llm, 1);
      expect(observation).toContain('The tool "trigger_long_running_operation" failed with this error');
      expect(observation).toContain('MCP server "fragile"');
      const failures = events.filter((e) => e.type === "mcp_tool_execution_failed");
      expect(failures.length).toBeGreaterThan(0);
      // Reconnected after the drop: more than one server process was started, every one ended.
      expect(events.some((e) => e.type === "mcp_connection_completed" && e.reconnect)).toBe(true);
    } finally {
      killOnCall();
    }
  });

  it("agent.kickoff on its own opens and closes its own connections", async () => {
    const { agent } = fakeAgent("Solo", [action("get_sum", { a: 20, b: 22 }), final("42")], {}, { mcps: [everythingStdio()] });
    const output = await agent.kickoff("What is 20 + 22?");
    expect(output.raw).toBe("42");
    expect(pids).toHaveLength(1);
  });

  it("rejects an invalid mcps entry when the agent is created", () => {
    expect(() => fakeAgent("Bad", [], {}, { mcps: [{ transport: "stdio" } as never] })).toThrow(/mcps\.0/);
  });
});
