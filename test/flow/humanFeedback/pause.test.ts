import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// The public entry point: these names are part of the package's exports.
import {
  eventBus,
  Flow,
  humanFeedback,
  HumanFeedbackError,
  HumanFeedbackPending,
  InMemoryFlowPersistence,
  listen,
  or,
  persist,
  SQLiteFlowPersistence,
  start,
  type HumanFeedbackProvider,
  type HumanFeedbackResult,
} from "../../../src/index.js";
import { FakeLLM } from "../../../src/testing/FakeLLM.js";
import { useTempStorageDir } from "../helpers.js";

const storage = useTempStorageDir("crewts-hitl-pause-");

/** A provider that always pauses, as a webhook or chat integration does. */
const pausing: HumanFeedbackProvider & { sent: string[] } = {
  sent: [],
  requestFeedback: async (context) => {
    pausing.sent.push(`${context.methodName}:${String(context.methodOutput)}`);
    throw new HumanFeedbackPending({ context, callbackInfo: { url: `https://example.test/hooks/${context.flowId}` } });
  },
};

// Counts of method bodies run, across instances (a resumed flow is a new instance).
const runs: Record<string, number> = {};
const count = (name: string): void => void (runs[name] = (runs[name] ?? 0) + 1);

const llm = new FakeLLM((messages) => (messages[1]!.content.includes("ship it") ? "approved" : "needs_revision"));

class Pipeline extends Flow<{ notes: string[]; revisions: number }> {
  override initialState = { notes: [] as string[], revisions: 0 };
  @start() research() {
    count("research");
    this.state.notes.push("researched");
    return "facts";
  }
  @humanFeedback({ message: "Publish this?", emit: ["approved", "needs_revision"], llm, defaultOutcome: "needs_revision", provider: pausing })
  @listen(or("research", "needs_revision"))
  draft() {
    count("draft");
    this.state.revisions++;
    return `draft v${this.state.revisions}`;
  }
  @listen("approved") publish(result: HumanFeedbackResult) {
    count("publish");
    this.state.notes.push(`published ${String(result.output)} (${result.feedback})`);
    return "published";
  }
}

describe("pausing a flow for feedback", () => {
  it("resolves kickoff with the pending value, persists to the default SQLite file, and resumes without rerunning finished methods", async () => {
    for (const key of Object.keys(runs)) delete runs[key];
    const events: string[] = [];
    const offs = [
      eventBus.on("method_execution_paused", (e) => void events.push(`method_paused:${e.methodName}`)),
      eventBus.on("flow_paused", (e) => void events.push(`flow_paused:${e.methodName}:${String(e.callbackInfo.url)}`)),
      eventBus.on("method_execution_failed", (e) => void events.push(`failed:${e.methodName}`)),
      eventBus.on("human_feedback_received", (e) => void events.push(`received:${e.outcome}`)),
    ];
    try {
      const flow = new Pipeline();
      const out = await flow.kickoff();
      expect(out).toBeInstanceOf(HumanFeedbackPending);
      const pending = out as HumanFeedbackPending;
      const flowId = pending.context.flowId;
      expect(flowId).toBe(flow.state.id);
      expect(pending.context).toMatchObject({ methodName: "draft", methodOutput: "draft v1", emit: ["approved", "needs_revision"], defaultOutcome: "needs_revision", flowClass: "Pipeline" });
      expect(pending.callbackInfo).toEqual({ url: `https://example.test/hooks/${flowId}` });
      expect(existsSync(join(storage.dir, "flow_states.db"))).toBe(true);
      expect(events).toEqual(["method_paused:draft", `flow_paused:draft:https://example.test/hooks/${flowId}`]);

      // A new process would do this: rebuild from the id, answer, and go on.
      const again = await Pipeline.fromPending(flowId);
      expect(again.state).toMatchObject({ id: flowId, notes: ["researched"], revisions: 1 });
      const second = await again.resume("please add a chart");
      expect(second).toBeInstanceOf(HumanFeedbackPending);
      expect((second as HumanFeedbackPending).context.methodOutput).toBe("draft v2");

      const third = await Pipeline.fromPending(flowId);
      expect(third.humanFeedbackHistory.map((r) => r.outcome)).toEqual(["needs_revision"]);
      expect(third.humanFeedbackHistory[0]!.timestamp).toBeInstanceOf(Date);
      expect(await third.resume("ship it")).toBe("published");
      expect(third.state.notes).toEqual(["researched", "published draft v2 (ship it)"]);
      expect(third.lastHumanFeedback).toMatchObject({ outcome: "approved", feedback: "ship it", output: "draft v2" });
      // research ran once, draft once per revision, publish once: nothing reran on resume.
      expect(runs).toEqual({ research: 1, draft: 2, publish: 1 });
      expect(events).not.toContain("failed:draft");
      expect(events.filter((e) => e.startsWith("received:"))).toEqual(["received:needs_revision", "received:approved"]);

      // The pause was answered: it cannot be resumed a second time.
      await expect(Pipeline.fromPending(flowId)).rejects.toThrow(/resumed already/);
    } finally {
      for (const off of offs) off();
    }
  });

  it("uses the persistence given to fromPending, and refuses unknown ids, other classes and resume without fromPending", async () => {
    const persistence = new SQLiteFlowPersistence(join(storage.dir, "custom.db"));
    const pending = (await new Pipeline({ persistence }).kickoff()) as HumanFeedbackPending;
    expect(pending).toBeInstanceOf(HumanFeedbackPending);
    expect(existsSync(join(storage.dir, "flow_states.db"))).toBe(false);
    await expect(Pipeline.fromPending(pending.context.flowId)).rejects.toThrow(HumanFeedbackError);
    await expect(Pipeline.fromPending("no-such-id", { persistence })).rejects.toThrow(/No flow paused for feedback with id "no-such-id"/);

    class Other extends Flow {
      @start() go() {
        return 1;
      }
    }
    await expect(Other.fromPending(pending.context.flowId, { persistence })).rejects.toThrow(/paused by flow class "Pipeline", not "Other"/);
    await expect(new Pipeline().resume("x")).rejects.toThrow(/fromPending/);

    const again = await Pipeline.fromPending(pending.context.flowId, { persistence });
    expect(await again.resume("ship it")).toBe("published");
    await persistence.close();
  });

  it("pauses a flow without emit and hands the feedback to the listeners on resume", async () => {
    let provided = 0;
    class Plain extends Flow<{ got: string }> {
      override initialState = { got: "" };
      @start()
      @humanFeedback({
        message: "Comments?",
        provider: {
          requestFeedback: async (context) => {
            provided++;
            throw new HumanFeedbackPending({ context });
          },
        },
      })
      ask() {
        return { table: [1, 2] };
      }
      @listen("ask") use(result: HumanFeedbackResult) {
        this.state.got = `${result.feedback}:${JSON.stringify(result.output)}:${String(result.outcome)}`;
        return this.state.got;
      }
    }
    const pending = (await new Plain().kickoff()) as HumanFeedbackPending;
    expect(pending.callbackInfo).toEqual({});
    const flow = await Plain.fromPending(pending.context.flowId);
    expect(await flow.resume("fine")).toBe('fine:{"table":[1,2]}:null');
    expect(provided).toBe(1);
  });

  it("keeps a @persist flow's pause in its own backend, and a finished resume lets the next kickoff by id run afresh", async () => {
    const backend = new InMemoryFlowPersistence();
    let starts = 0;
    @persist(backend)
    class Kept extends Flow<{ seen: string[] }> {
      override initialState = { seen: [] as string[] };
      @start() begin() {
        starts++;
        this.state.seen.push("begin");
        return "x";
      }
      @listen("begin")
      @humanFeedback({ message: "ok?", provider: { requestFeedback: async (context) => Promise.reject(new HumanFeedbackPending({ context })) } })
      check() {
        return "checked";
      }
      @listen("check") end(result: HumanFeedbackResult) {
        this.state.seen.push(`end:${result.feedback}`);
        return this.state.seen.join(",");
      }
    }
    const pending = (await new Kept().kickoff()) as HumanFeedbackPending;
    expect(pending).toBeInstanceOf(HumanFeedbackPending);
    expect(existsSync(join(storage.dir, "flow_states.db"))).toBe(false);
    const flow = await Kept.fromPending(pending.context.flowId);
    expect(await flow.resume("fine")).toBe("begin,end:fine");
    expect(starts).toBe(1);
    expect(await backend.loadProgress(pending.context.flowId)).toEqual([]);
  });
});
