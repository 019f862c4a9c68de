import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { checkpointInfo, checkpointList, parseInputs } from "../../src/cli/commands/checkpoint.js";
import { resumeInProject } from "../../src/cli/runner/projectResume.js";
import { Crew } from "../../src/crew/index.js";
import { Flow, listen, start } from "../../src/flow/index.js";
import { listCheckpoints } from "../../src/runtime/checkpoint/checkpointStores.js";
import { Task } from "../../src/task/index.js";
import { FakeLLM } from "../../src/testing/index.js";
import { tool } from "../../src/tools/index.js";
import { z } from "zod";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "crewts-cli-cp-"));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

function crew(calls: string[], failOn?: string): Crew {
  const llm = new FakeLLM((messages) => {
    const text = messages.map((m) => m.content).join("\n");
    const step = /step-(\w)/.exec(text.slice(text.lastIndexOf("Current Task:")))![1]!;
    if (step === failOn) throw new Error("model down");
    calls.push(step);
    return `Thought: done\nFinal Answer: done ${step}`;
  });
  const agent = new Agent({ role: "Worker", goal: "g", backstory: "b", llm });
  return new Crew({ agents: [agent], tasks: ["a", "b", "c"].map((s) => new Task({ description: `Do step-${s}`, expectedOutput: "x", agent })), name: "cli-crew", checkpoint: { location: dir } });
}

let flowRuns: string[] = [];
class TwoStep extends Flow<{ fail: boolean }> {
  override initialState = { fail: true };
  @start() first() {
    flowRuns.push("first");
    return 1;
  }
  @listen("first") second() {
    if (this.state.fail) throw new Error("crash");
    flowRuns.push("second");
    return "second done";
  }
}

describe("crewts checkpoint", () => {
  it("lists checkpoints and shows one", async () => {
    await expect(crew([], "c").kickoff()).rejects.toThrow();
    const printed: string[] = [];
    expect(await checkpointList({ location: dir }, (l) => void printed.push(l))).toBe(0);
    expect(printed).toHaveLength(2);
    expect(printed[1]).toMatch(/crew {2}cli-crew {2}branch=main {2}event=task_completed/);
    const id = printed[1]!.split(" ")[0]!;
    const info: string[] = [];
    await checkpointInfo(id, { location: dir }, (l) => void info.push(l));
    expect(info[0]).toContain(`id:        ${id}`);
    expect(info[0]).toContain("tasks done: 2");
    expect(info[0]).toContain("2. done b");
  });

  it("says where it looked when there are none", async () => {
    const printed: string[] = [];
    await checkpointList({ location: join(dir, "empty") }, (l) => void printed.push(l));
    expect(printed[0]).toMatch(/No checkpoints in .*empty/);
  });

  it("resumes a crew checkpoint with the project's createCrew()", async () => {
    await expect(crew([], "c").kickoff()).rejects.toThrow();
    const id = (await listCheckpoints(dir)).at(-1)!.id;
    const calls: string[] = [];
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    expect(await resumeInProject({ createCrew: () => crew(calls) }, "main.ts", [id, "crew", dir, ""])).toBe(0);
    expect(calls).toEqual(["c"]);
    expect(log).toHaveBeenCalledWith("done c");
  });

  it("resumes a flow checkpoint with the project's flow class, with --inputs", async () => {
    flowRuns = [];
    await expect(new TwoStep({ checkpoint: { location: dir } }).kickoff()).rejects.toThrow("crash");
    const id = (await listCheckpoints(dir)).at(-1)!.id;
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    expect(await resumeInProject({ TwoStep }, "main.ts", [id, "flow", dir, '{"fail":false}'])).toBe(0);
    expect(flowRuns).toEqual(["first", "second"]);
  });

  it("resumes an agent checkpoint with the agent the project exports, or says what to export", async () => {
    const replies = (calls: string[]) =>
      new FakeLLM((messages) => {
        calls.push(`llm ${calls.length}`);
        return messages.some((m) => m.role === "assistant" && m.content.includes("Observation: 3 counted")) ? "Thought: done\nFinal Answer: counted 3" : 'Thought: count\nAction: count\nAction Input: {"n": 3}';
      });
    const ran: number[] = [];
    const counter = tool({ name: "count", description: "Counts", schema: z.object({ n: z.number() }), execute: ({ n }) => {
        ran.push(n);
        return `${n} counted`;
      },
    });
    const first: string[] = [];
    const agent = new Agent({ role: "Counter", goal: "g", backstory: "b", llm: replies(first), tools: [counter], checkpoint: { location: join(dir, "agent") } });
    await agent.kickoff("Count to 3");
    const cps = await listCheckpoints(join(dir, "agent"));
    expect(cps.map((c) => c.kind)).toContain("agent");
    const afterTool = cps.find((c) => c.event === "tool_usage_finished")!;

    const later: string[] = [];
    const exported = new Agent({ role: "Counter", goal: "g", backstory: "b", llm: replies(later), tools: [counter] });
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    expect(await resumeInProject({ agent: exported }, "main.ts", [afterTool.id, "agent", join(dir, "agent"), ""])).toBe(0);
    expect(log).toHaveBeenCalledWith("counted 3");
    expect(later).toHaveLength(1);
    expect(ran).toEqual([3]);

    await expect(resumeInProject({ helper: () => 1 }, "main.ts", [afterTool.id, "agent", join(dir, "agent"), ""])).rejects.toThrow(/exports no agent: export the agent/);
  });

  it("rejects --inputs that are not a JSON object", () => {
    expect(() => parseInputs("[1]")).toThrow(/must be a JSON object/);
    expect(() => parseInputs("{nope")).toThrow(/not valid JSON/);
  });
});
