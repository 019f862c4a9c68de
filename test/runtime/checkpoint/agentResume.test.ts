import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, AgentConfigError } from "../../../src/agent/index.js";
import { KickoffAbortedError } from "../../../src/runtime/KickoffAbortedError.js";
import { Crew } from "../../../src/crew/index.js";
import { CheckpointError } from "../../../src/runtime/checkpoint/errors.js";
import { listCheckpoints } from "../../../src/runtime/checkpoint/checkpointStores.js";
import type { AgentProgress, Checkpoint } from "../../../src/runtime/checkpoint/types.js";
import { FakeLLM, type FakeResponse } from "../../../src/testing/index.js";
import { tool } from "../../../src/tools/index.js";
import { action, final, task } from "../../crew/helpers.js";
import { setHumanInputProvider, type HumanInputContext } from "../../../src/runtime/humanInput.js";
import { HumanInputPending } from "../../../src/runtime/humanInputPending.js";

let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "crewts-agent-cp-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const NATIVE: FakeResponse[] = [
  { toolCalls: [{ name: "measure", arguments: { what: "tide" } }] },
  { toolCalls: [{ name: "measure", arguments: { what: "wave" } }, { name: "measure", arguments: { what: "wind" } }] },
  final("tide 1, wave 2, wind 3"),
];
const TEXT: FakeResponse[] = [action("measure", { what: "tide" }), action("measure", { what: "wave" }), final("tide 1, wave 2")];

/** An agent measuring things with a tool that counts its runs; `script` is what its model answers. */
function measurer(script: FakeResponse[], location: string, native = true) {
  const ran: string[] = [];
  const values: Record<string, number> = { tide: 1, wave: 2, wind: 3 };
  const measure = tool({ name: "measure", description: "Measures a thing", schema: z.object({ what: z.string() }), execute: ({ what }) => {
      ran.push(what);
      return `${what}=${values[what]}`;
    },
  });
  const llm = new FakeLLM(script, { functionCalling: native });
  const agent = new Agent({ role: "Surveyor", goal: "measure", backstory: "careful", llm, tools: [measure], checkpoint: { location } });
  return { agent, llm, ran };
}

/** How many model replies and tool results a checkpoint records as done. */
function recorded(cp: Checkpoint): { replies: number; tools: number } {
  const progress = cp.progress as AgentProgress;
  const messages = progress.run?.messages ?? [];
  const tools = messages.filter((m) => m.role === "tool").length + messages.filter((m) => m.role === "assistant" && m.content.includes("Observation:")).length;
  return { replies: cp.usage.successfulRequests, tools };
}

describe("standalone agent checkpoints", () => {
  it("writes a checkpoint per model reply and tool result, listed as kind agent, and resumes from each one without repeating recorded work", async () => {
    const location = join(dir, "cps");
    const full = measurer(NATIVE, location);
    const out = await full.agent.kickoff("Measure the tide, the waves and the wind");
    expect(out.raw).toBe("tide 1, wave 2, wind 3");
    const cps = await listCheckpoints(location);
    expect(cps.map((c) => c.event)).toEqual([
      "llm_call_completed",
      "tool_usage_finished",
      "llm_call_completed",
      "tool_usage_finished",
      "tool_usage_finished",
      "llm_call_completed",
      "agent_execution_completed",
    ]);
    expect(new Set(cps.map((c) => c.kind))).toEqual(new Set(["agent"]));
    expect(cps[0]!.name).toBe("Surveyor");
    expect(cps[0]!.inputs).toEqual({ messages: "Measure the tide, the waves and the wind" });

    for (const cp of cps) {
      const done = recorded(cp);
      // A new process: the model only has the replies not recorded yet.
      // An id is looked up at the agent's own checkpoint location: elsewhere it is not found.
      const elsewhere = measurer(NATIVE.slice(done.replies), join(dir, "elsewhere"));
      await expect(elsewhere.agent.kickoff("", { fromCheckpoint: cp.id })).rejects.toBeInstanceOf(CheckpointError);
      const same = measurer(NATIVE.slice(done.replies), location);
      const result = await same.agent.kickoff("", { fromCheckpoint: cp.id });
      expect(result.raw, cp.event).toBe(out.raw);
      expect(result.usageMetrics, cp.event).toEqual(out.usageMetrics);
      expect(same.llm.calls.length, cp.event).toBe(3 - done.replies);
      expect(same.ran.length, cp.event).toBe(3 - done.tools);
      expect([...full.ran.slice(0, done.tools), ...same.ran]).toEqual(full.ran);
    }
  });

  it("resumes a text-protocol agent at the tool call it was killed after", async () => {
    const location = join(dir, "cps");
    const full = measurer(TEXT, location, false);
    const out = await full.agent.kickoff("Measure the tide and the waves");
    const cps = await listCheckpoints(location);
    const afterFirstTool = cps.find((c) => c.event === "tool_usage_finished")!;
    const again = measurer(TEXT.slice(1), location, false);
    const result = await again.agent.kickoff("", { fromCheckpoint: afterFirstTool.id });
    expect(result.raw).toBe(out.raw);
    expect(again.ran).toEqual(["wave"]);
    expect(again.llm.calls).toHaveLength(2);
    // The resumed conversation holds the first observation, written before the checkpoint.
    expect(again.llm.calls[0]!.messages.map((m) => m.content).join("\n")).toContain("Observation: tide=1");
  });

  it("forks an agent checkpoint into a new branch and resumes the fork beside the original", async () => {
    const location = join(dir, "cps");
    const full = measurer(NATIVE, location);
    await full.agent.kickoff("Measure everything");
    const cps = await listCheckpoints(location);
    const middle = cps[3]!;
    const fork = await Agent.fork(middle.id, { branch: "retry", location });
    expect(fork).toMatchObject({ kind: "agent", branch: "retry", parentId: middle.id, name: "Surveyor" });
    expect(fork.lineage).not.toBe(middle.lineage);
    const again = measurer(NATIVE.slice(recorded(middle).replies), location);
    const result = await again.agent.kickoff("", { fromCheckpoint: fork.id });
    expect(result.raw).toBe("tide 1, wave 2, wind 3");
    const after = await listCheckpoints(location);
    expect(after.filter((c) => c.lineage === fork.lineage).map((c) => c.branch)).toEqual(expect.arrayContaining(["retry", "retry"]));
    expect(after.filter((c) => c.lineage === middle.lineage)).toHaveLength(cps.length);
    await expect(Crew.fork(middle.id, { location })).rejects.toThrow(/fork it with Agent\.fork/);
  });

  it("refuses checkpoints of another kind or another agent, and bad checkpoint options", async () => {
    const location = join(dir, "cps");
    const worker = measurer([final("crew done")], location);
    await new Crew({ agents: [worker.agent], tasks: [task("Work", worker.agent)], checkpoint: { location } }).kickoff();
    const [crewCp] = await listCheckpoints(location);
    expect(crewCp!.kind).toBe("crew");
    await expect(measurer([], location).agent.kickoff("x", { fromCheckpoint: crewCp!.id })).rejects.toThrow(/belongs to a crew .*not an agent/);

    const own = measurer([final("mine")], join(dir, "own"));
    await own.agent.kickoff("Do it");
    const [agentCp] = await listCheckpoints(join(dir, "own"));
    const other = new Agent({ role: "Other", goal: "g", backstory: "b", llm: new FakeLLM([]), checkpoint: { location: join(dir, "own") } });
    await expect(other.kickoff("x", { fromCheckpoint: agentCp!.id })).rejects.toThrow(/written by agent "Surveyor", not "Other"/);
    expect(() => new Agent({ role: "R", goal: "g", backstory: "b", checkpoint: { maxCheckpoints: 0 } })).toThrow(AgentConfigError);
  });

  it("pauses a standalone agent at a tool approval and agent.resume(id, answer) continues at that call", async () => {
    const previous = process.cwd();
    // Without a checkpoint option the pause checkpoint goes to ./.checkpoints.
    process.chdir(dir);
    const asked: HumanInputContext[] = [];
    setHumanInputProvider({
      requestInput: async (context) => {
        asked.push(context);
        throw new HumanInputPending({ context });
      },
    });
    try {
      const dropped: string[] = [];
      const drop = tool({ name: "drop", description: "Drops a table", schema: z.object({ table: z.string() }), needsApproval: true, execute: ({ table }) => {
          dropped.push(table);
          return `dropped ${table}`;
        },
      });
      const script: FakeResponse[] = [{ toolCalls: [{ name: "measure", arguments: { what: "tide" } }] }, { toolCalls: [{ name: "drop", arguments: { table: "old" } }] }, final("cleaned up")];
      const build = (responses: FakeResponse[]) => {
        const m = measurer(responses, "unused");
        const agent = new Agent({ role: "Surveyor", goal: "measure", backstory: "careful", llm: m.llm, tools: [...m.agent.tools, drop] });
        return { ...m, agent };
      };
      const first = build(script);
      const pending = (await first.agent.kickoff("Measure, then clean up").catch((e: unknown) => e)) as HumanInputPending;
      expect(pending).toBeInstanceOf(HumanInputPending);
      expect(pending.checkpointId).toEqual(expect.any(String));
      expect(asked).toEqual([expect.objectContaining({ kind: "tool_approval", toolName: "drop", toolInput: { table: "old" } })]);
      const cps = await listCheckpoints();
      expect(cps.map((c) => [c.kind, c.event])).toEqual([["agent", "human_input_pending"]]);
      expect(first.llm.calls).toHaveLength(2);
      expect(first.ran).toEqual(["tide"]);

      setHumanInputProvider(async () => "");
      const second = build(script.slice(2));
      const out = await second.agent.resume(pending.checkpointId!, "yes");
      expect(out.raw).toBe("cleaned up");
      expect(second.llm.calls).toHaveLength(1);
      expect(second.ran).toEqual([]);
      expect(dropped).toEqual(["old"]);
      expect(asked).toHaveLength(1);
      expect(out.usageMetrics.successfulRequests).toBe(3);
    } finally {
      setHumanInputProvider(undefined);
      process.chdir(previous);
    }
  });

  it("a cancelled agent kickoff leaves a checkpoint that resumes at the tool call it was stopped in", async () => {
    const location = join(dir, "cps");
    const controller = new AbortController();
    const slow = tool({ name: "slow", description: "Takes a while", schema: z.object({ n: z.number() }), execute: async ({ n }, context) => {
        controller.abort();
        await new Promise((resolve) => context?.signal?.addEventListener("abort", resolve, { once: true }));
        return `slow ${n}`;
      },
    });
    const script: FakeResponse[] = [{ toolCalls: [{ name: "slow", arguments: { n: 1 } }] }, final("slow done")];
    const first = new FakeLLM(script, { functionCalling: true });
    const agent = new Agent({ role: "Waiter", goal: "wait", backstory: "patient", llm: first, tools: [slow], checkpoint: { location } });
    await expect(agent.kickoff("Wait", { signal: controller.signal })).rejects.toBeInstanceOf(KickoffAbortedError);
    const cps = await listCheckpoints(location);
    expect(cps.map((c) => c.event)).toEqual(["llm_call_completed"]);

    const ran: number[] = [];
    const quick = tool({ name: "slow", description: "Takes a while", schema: z.object({ n: z.number() }), execute: ({ n }) => {
        ran.push(n);
        return `slow ${n}`;
      },
    });
    const second = new FakeLLM(script.slice(1), { functionCalling: true });
    const again = new Agent({ role: "Waiter", goal: "wait", backstory: "patient", llm: second, tools: [quick], checkpoint: { location } });
    const out = await again.kickoff("", { fromCheckpoint: cps[0]!.id });
    expect(out.raw).toBe("slow done");
    expect(ran).toEqual([1]);
    expect(second.calls).toHaveLength(1);
  });

  it("agent.resume refuses a checkpoint that is not a pause", async () => {
    const location = join(dir, "cps");
    const m = measurer([final("done")], location);
    await m.agent.kickoff("Do it");
    const [cp] = await listCheckpoints(location);
    await expect(m.agent.resume(cp!.id, "yes")).rejects.toThrow(/not written by an agent paused for human input/);
  });

  it("writes nothing without the checkpoint option", async () => {
    const llm = new FakeLLM([final("plain")]);
    const agent = new Agent({ role: "Plain", goal: "g", backstory: "b", llm });
    const previous = process.cwd();
    process.chdir(dir);
    try {
      expect((await agent.kickoff("Go")).raw).toBe("plain");
      expect(await listCheckpoints()).toEqual([]);
    } finally {
      process.chdir(previous);
    }
  });
});
