import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Crew } from "../../../src/crew/index.js";
import { setHumanInputProvider } from "../../../src/runtime/humanInput.js";
import { HumanInputPending } from "../../../src/runtime/humanInputPending.js";
import { loadCheckpoint } from "../../../src/runtime/checkpoint/checkpointStores.js";
import { tool } from "../../../src/tools/index.js";
import { action, fakeAgent, final, task, userText } from "../../crew/helpers.js";
import { pausingProvider } from "./fixtures/pausingProvider.js";

let dir = "";
let previous = "";
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "crewts-human-pause-"));
  previous = process.cwd();
  // The forced checkpoint of a crew without `checkpoint` goes to the default ./.checkpoints.
  process.chdir(dir);
});
afterEach(async () => {
  setHumanInputProvider(undefined);
  process.chdir(previous);
  await rm(dir, { recursive: true, force: true });
});

describe("a crew paused for human input", () => {
  it("pauses a task review in a default-location checkpoint, and resumes with the feedback without rerunning finished work", async () => {
    const asked = pausingProvider();
    const research = fakeAgent("Researcher", [final("facts about tides")]);
    const writer = fakeAgent("Writer", [final("first draft"), final("draft with a title")]);
    const build = () =>
      new Crew({
        agents: [research.agent, writer.agent],
        tasks: [task("Research tides", research.agent), task("Write about tides", writer.agent, { humanInput: true })],
      });

    const error = await build().kickoff().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HumanInputPending);
    const pending = error as HumanInputPending;
    expect(pending.checkpointId).toEqual(expect.any(String));
    expect(pending.callbackInfo).toEqual({ ticket: 1 });
    expect(asked[0]).toMatchObject({ kind: "task_review", agentRole: "Writer", taskName: "Write about tides", output: "first draft" });
    expect(existsSync(join(dir, ".checkpoints"))).toBe(true);
    const cp = await loadCheckpoint(pending.checkpointId!);
    expect(cp.progress).toMatchObject({ tasks: [{ index: 0 }], pendingHumanInput: { context: { kind: "task_review", output: "first draft" } } });
    expect(research.llm.calls).toHaveLength(1);
    expect(writer.llm.calls).toHaveLength(1);

    // The answer comes later (another process would build the same crew); the next question is answered at once.
    setHumanInputProvider(async () => "");
    const out = await build().resume(pending.checkpointId!, "Add a title");
    expect(out.raw).toBe("draft with a title");
    expect(out.tasksOutput.map((t) => t.raw)).toEqual(["facts about tides", "draft with a title"]);
    // Research did not run again; the writer ran once more, with the feedback, and not again before it.
    expect(research.llm.calls).toHaveLength(1);
    expect(writer.llm.calls).toHaveLength(2);
    expect(userText(writer.llm, 1)).toContain("Add a title");
  });

  it("resumes a paused tool approval at the tool call: earlier model turns are not repeated and the approved tool runs once", async () => {
    const asked = pausingProvider();
    const ran: string[] = [];
    const lookup = tool({ name: "lookup", description: "Looks up a table", schema: z.object({ table: z.string() }), execute: ({ table }) => {
        ran.push(`lookup ${table}`);
        return `${table} has 3 rows`;
      },
    });
    const risky = tool({ name: "drop_table", description: "Drops a table", schema: z.object({ table: z.string() }), needsApproval: true, execute: ({ table }) => {
        ran.push(`drop ${table}`);
        return `dropped ${table}`;
      },
    });
    const research = fakeAgent("Researcher", [final("logs is stale")]);
    const first = fakeAgent("Admin", [
      { toolCalls: [{ name: "lookup", arguments: { table: "logs" } }] },
      { toolCalls: [{ name: "drop_table", arguments: { table: "logs" } }] },
    ], { functionCalling: true }, { tools: [lookup, risky] });
    const build = (admin: ReturnType<typeof fakeAgent>, r: ReturnType<typeof fakeAgent>) =>
      new Crew({ agents: [r.agent, admin.agent], tasks: [task("Find stale tables", r.agent), task("Clean up", admin.agent)] });
    const pending = (await build(first, research).kickoff().catch((e: unknown) => e)) as HumanInputPending;
    expect(pending).toBeInstanceOf(HumanInputPending);
    expect(asked[0]).toMatchObject({ kind: "tool_approval", toolName: "drop_table", toolInput: { table: "logs" } });
    expect(ran).toEqual(["lookup logs"]);
    expect(first.llm.calls).toHaveLength(2);
    const cp = await loadCheckpoint(pending.checkpointId!);
    expect(Object.keys((cp.progress as { pendingHumanInput: { runs: object } }).pendingHumanInput.runs)).toHaveLength(1);

    // A new process: the new model only has the turn after the tool; the research task and the admin's first two turns are not asked again.
    const second = fakeAgent("Admin", [final("cleaned")], { functionCalling: true }, { tools: [lookup, risky] });
    const research2 = fakeAgent("Researcher", [final("never asked")]);
    const out = await build(second, research2).resume(pending.checkpointId!, "yes");
    expect(out.raw).toBe("cleaned");
    expect(out.tasksOutput.map((t) => t.raw)).toEqual(["logs is stale", "cleaned"]);
    expect(ran).toEqual(["lookup logs", "drop logs"]);
    expect(asked).toHaveLength(1);
    expect(research2.llm.calls).toHaveLength(0);
    expect(second.llm.calls).toHaveLength(1);
    // The one call continues the paused conversation: both tool results are in it, the lookup's from before the pause.
    const messages = second.llm.calls[0]!.messages;
    expect(messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual(["logs has 3 rows", "dropped logs"]);
  });

  it("gives a rejected tool the rejection as its observation on resume, and the task finishes", async () => {
    pausingProvider();
    const ran: string[] = [];
    const risky = tool({ name: "drop_table", description: "Drops a table", schema: z.object({ table: z.string() }), needsApproval: true, execute: ({ table }) => {
        ran.push(table);
        return `dropped ${table}`;
      },
    });
    const first = fakeAgent("Admin", [action("drop_table", { table: "users" })], {}, { tools: [risky] });
    const pending = (await new Crew({ agents: [first.agent], tasks: [task("Clean up", first.agent)] }).kickoff().catch((e: unknown) => e)) as HumanInputPending;
    expect(pending).toBeInstanceOf(HumanInputPending);
    expect(first.llm.calls).toHaveLength(1);

    const second = fakeAgent("Admin", [final("left users alone")], {}, { tools: [risky] });
    const out = await new Crew({ agents: [second.agent], tasks: [task("Clean up", second.agent)] }).resume(pending.checkpointId!, "no, users is live");
    expect(out.raw).toBe("left users alone");
    expect(ran).toEqual([]);
    expect(second.llm.calls).toHaveLength(1);
    // Text protocol: the refused action and its observation (the human's words) are the last assistant turn.
    const last = second.llm.calls[0]!.messages.at(-1)!;
    expect(last.content).toContain("Action: drop_table");
    expect(last.content).toContain("no, users is live");
  });

  it("pauses a crew when a pause comes from inside a tool (a nested crew's approval), instead of turning it into an observation", async () => {
    const asked = pausingProvider();
    const ran: string[] = [];
    const inner = tool({ name: "wipe", description: "Wipes", schema: z.object({ what: z.string() }), needsApproval: true, execute: ({ what }) => ran.push(what) });
    const nested = tool({
      name: "run_cleanup_crew",
      description: "Runs the cleanup crew",
      schema: z.object({ area: z.string() }),
      execute: async ({ area }) => {
        const cleaner = fakeAgent("Cleaner", [{ toolCalls: [{ name: "wipe", arguments: { what: area } }] }, final("wiped")], { functionCalling: true }, { tools: [inner] });
        return (await new Crew({ agents: [cleaner.agent], tasks: [task("Wipe", cleaner.agent)] }).kickoff()).raw;
      },
    });
    const boss = fakeAgent("Boss", [{ toolCalls: [{ name: "run_cleanup_crew", arguments: { area: "cache" } }] }, final("all clean")], { functionCalling: true }, { tools: [nested] });
    const error = await new Crew({ agents: [boss.agent], tasks: [task("Clean", boss.agent)] }).kickoff().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HumanInputPending);
    expect(asked).toEqual([expect.objectContaining({ kind: "tool_approval", toolName: "wipe", toolInput: { what: "cache" } })]);
    expect(boss.llm.calls).toHaveLength(1);
    expect(ran).toEqual([]);
  });

  it("writes no checkpoint when the provider answers at once", async () => {
    setHumanInputProvider(async () => "");
    const { agent } = fakeAgent("Writer", [final("done")]);
    const out = await new Crew({ agents: [agent], tasks: [task("Write", agent, { humanInput: true })] }).kickoff();
    expect(out.raw).toBe("done");
    expect(existsSync(join(dir, ".checkpoints"))).toBe(false);
  });

  it("refuses to resume a checkpoint that is not a pause", async () => {
    const { agent } = fakeAgent("A", [final("x")]);
    const crew = new Crew({ agents: [agent], tasks: [task("T", agent)], checkpoint: { location: join(dir, "cps") } });
    await crew.kickoff();
    const { listCheckpoints } = await import("../../../src/runtime/checkpoint/checkpointStores.js");
    const [cp] = await listCheckpoints(join(dir, "cps"));
    await expect(crew.resume(cp!.id, "ok")).rejects.toThrow(/not written by a crew paused for human input/);
  });
});
