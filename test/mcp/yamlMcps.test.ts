import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Crew } from "../../src/crew/index.js";
import { eventBus } from "../../src/events/index.js";
import { CrewBase, ProjectConfigError } from "../../src/project/index.js";
import { FakeLLM } from "../../src/testing/index.js";
import { EVERYTHING, isAlive } from "./servers.js";

function project(agents: string): { agents: string; tasks: string } {
  const dir = mkdtempSync(join(tmpdir(), "crewts-mcp-yaml-"));
  writeFileSync(join(dir, "agents.yaml"), agents);
  writeFileSync(join(dir, "tasks.yaml"), "sum_task:\n  description: Add {a} and {b}\n  expected_output: The sum\n  agent: calculator\n");
  return { agents: join(dir, "agents.yaml"), tasks: join(dir, "tasks.yaml") };
}

describe("mcps in agents.yaml", () => {
  it("gives the agent the tools of the servers listed under it (snake_case keys, ${ENV} values)", async () => {
    process.env.CREWTS_TEST_MCP_GREETING = "from env";
    const paths = project(`calculator:
  role: Calculator
  goal: Add numbers
  backstory: You add.
  mcps:
    - transport: stdio
      command: ${JSON.stringify(process.execPath)}
      args: [${JSON.stringify(EVERYTHING)}, stdio]
      env: { GREETING: "\${CREWTS_TEST_MCP_GREETING}" }
      tool_filter:
        allowed_tool_names: [get-sum, get-env]
      cache_tools_list: false
`);
    const llm = new FakeLLM([{ toolCalls: [{ name: "get_env", arguments: {} }] }, { toolCalls: [{ name: "get_sum", arguments: { a: 1, b: 2 } }] }, "3"], { functionCalling: true });
    class Calculators extends CrewBase {
      override agentsConfig = paths.agents;
      override tasksConfig = paths.tasks;
      override llm = llm;
    }
    const pids: number[] = [];
    const off = eventBus.on("mcp_connection_completed", (e) => void (e.pid !== undefined && pids.push(e.pid)));
    try {
      const instance = new Calculators();
      const output = await new Crew({ agents: instance.agents, tasks: instance.tasks }).kickoff({ a: 1, b: 2 });
      expect(output.raw).toBe("3");
    } finally {
      off();
    }
    expect(llm.calls[0]!.options.tools?.map((t) => t.name).sort()).toEqual(["get_env", "get_sum"]);
    const messages = JSON.stringify(llm.calls[2]!.messages);
    expect(messages).toContain('\\"GREETING\\": \\"from env\\"');
    expect(messages).toContain("The sum of 1 and 2 is 3.");
    expect(pids).toHaveLength(1);
    expect(isAlive(pids[0]!)).toBe(false);
  });

  it("reports a broken mcps entry with the file and line", () => {
    const paths = project(`calculator:
  role: Calculator
  goal: Add numbers
  backstory: You add.
  mcps:
    - transport: stdio
      args: [x]
`);
    class Broken extends CrewBase {
      override agentsConfig = paths.agents;
      override tasksConfig = paths.tasks;
      override llm = new FakeLLM([]);
    }
    const error = (() => {
      try {
        return void new Broken().agents;
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error).toBeInstanceOf(ProjectConfigError);
    expect(error?.message).toMatch(/agents\.yaml/);
    expect(error?.message).toContain("mcps has an invalid MCP server: 0.command");
  });
});
