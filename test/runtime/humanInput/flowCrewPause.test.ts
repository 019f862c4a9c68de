import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Crew, eventBus, Flow, HumanFeedbackError, HumanFeedbackPending, listen, setHumanInputProvider, start, tool } from "../../../src/index.js";
import { FakeLLM, type FakeResponse } from "../../../src/testing/index.js";
import { fakeAgent, final, task, userText } from "../../crew/helpers.js";
import { pausingProvider } from "./fixtures/pausingProvider.js";

let dir = "";
let previousCwd = "";
let previousStorage: string | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "crewts-flow-crew-pause-"));
  previousCwd = process.cwd();
  previousStorage = process.env.CREWTS_STORAGE_DIR;
  // The crew's pause checkpoint goes to ./.checkpoints, the flow's pause to the default flow persistence.
  process.chdir(dir);
  process.env.CREWTS_STORAGE_DIR = dir;
});
afterEach(async () => {
  setHumanInputProvider(undefined);
  process.chdir(previousCwd);
  if (previousStorage === undefined) delete process.env.CREWTS_STORAGE_DIR;
  else process.env.CREWTS_STORAGE_DIR = previousStorage;
  await rm(dir, { recursive: true, force: true });
});

// What the flow's crew works with; set by each test, shared by the flow instances of a test (a resumed flow is a new instance).
let models: { research: FakeLLM; writer: FakeLLM } = { research: new FakeLLM([]), writer: new FakeLLM([]) };
let writerOptions: { humanInput?: boolean } = {};
const posted: string[] = [];
const runs: Record<string, number> = {};
const count = (name: string): void => void (runs[name] = (runs[name] ?? 0) + 1);

const post = tool({
  name: "post",
  description: "Posts an article",
  schema: z.object({ title: z.string() }),
  needsApproval: true,
  execute: ({ title }) => {
    posted.push(title);
    return `posted ${title}`;
  },
});

class Publishing extends Flow<{ log: string[]; article: string }> {
  override initialState = { log: [] as string[], article: "" };

  @start() plan() {
    count("plan");
    this.state.log.push("plan");
    return "tides";
  }

  @listen("plan") async write(topic: string) {
    count("write");
    const research = fakeAgent("Researcher", [], {}, { llm: models.research }).agent;
    const writer = fakeAgent("Writer", [], {}, { llm: models.writer, tools: [post] }).agent;
    const crew = new Crew({ name: "writers", agents: [research, writer], tasks: [task(`Research ${topic}`, research), task(`Write and post about ${topic}`, writer, writerOptions)] });
    const out = await crew.kickoff();
    this.state.article = out.raw;
    return out.raw;
  }

  @listen("write") publish(article: string) {
    count("publish");
    this.state.log.push(`published ${article}`);
    return `published: ${article}`;
  }
}

function setUp(research: FakeResponse[], writer: FakeResponse[], options: { humanInput?: boolean } = {}): void {
  models = { research: new FakeLLM(research), writer: new FakeLLM(writer, { functionCalling: true }) };
  writerOptions = options;
  posted.length = 0;
  for (const key of Object.keys(runs)) delete runs[key];
}

describe("a crew inside a flow method that pauses for a human", () => {
  it("pauses the flow on a tool approval, and resume(answer) continues the crew at the tool call, then the flow", async () => {
    setUp([final("tides rise twice a day")], [{ toolCalls: [{ name: "post", arguments: { title: "Tides" } }] }, final("article posted")]);
    const asked = pausingProvider((n) => `T-${n}`);
    const events: string[] = [];
    const offs = [
      eventBus.on("method_execution_paused", (e) => void events.push(`method_paused:${e.methodName}`)),
      eventBus.on("flow_paused", (e) => void events.push(`flow_paused:${e.methodName}:${String(e.callbackInfo.ticket)}`)),
      eventBus.on("method_execution_failed", (e) => void events.push(`failed:${e.methodName}`)),
    ];
    try {
      const flow = new Publishing();
      const out = await flow.kickoff();
      expect(out).toBeInstanceOf(HumanFeedbackPending);
      const pending = out as HumanFeedbackPending;
      expect(pending.context).toMatchObject({
        flowClass: "Publishing",
        methodName: "write",
        methodOutput: { toolName: "post", toolInput: { title: "Tides" } },
        crewPause: { crewName: "writers", request: { kind: "tool_approval", toolName: "post" } },
      });
      expect(pending.message).toContain('crew "writers" in "write" waits for approval of tool "post"');
      expect(pending.callbackInfo).toEqual({ ticket: "T-1" });
      expect(events).toEqual(["method_paused:write", "flow_paused:write:T-1"]);
      expect(asked).toHaveLength(1);
      expect(posted).toEqual([]);
      expect(runs).toEqual({ plan: 1, write: 1 });

      // Later, in a new instance: the answer goes to the crew's tool approval.
      setHumanInputProvider(async () => "");
      const again = await Publishing.fromPending(pending.context.flowId);
      expect(again.state.log).toEqual(["plan"]);
      const result = await again.resume("yes");
      expect(result).toBe("published: article posted");
      expect(again.state.log).toEqual(["plan", "published article posted"]);
      expect(again.state.article).toBe("article posted");
      // plan did not run again; write ran again, but its crew resumed: research was not asked again,
      // the writer was asked only for the turn after the tool, and the approved tool ran once.
      expect(runs).toEqual({ plan: 1, write: 2, publish: 1 });
      expect(models.research.calls).toHaveLength(1);
      expect(models.writer.calls).toHaveLength(2);
      expect(posted).toEqual(["Tides"]);
      expect(asked).toHaveLength(1);
      expect(events.filter((e) => e.startsWith("failed"))).toEqual([]);

      // The pause is answered: it cannot be resumed twice.
      await expect(Publishing.fromPending(pending.context.flowId)).rejects.toThrow(HumanFeedbackError);
    } finally {
      for (const off of offs) off();
    }
  });

  it("pauses the flow on a task review, and resume(feedback) reruns only the reviewed task with the feedback", async () => {
    setUp([final("tides rise twice a day")], [final("draft"), final("draft with a title")], { humanInput: true });
    const asked = pausingProvider((n) => `T-${n}`);
    const pending = (await new Publishing().kickoff()) as HumanFeedbackPending;
    expect(pending).toBeInstanceOf(HumanFeedbackPending);
    expect(pending.context).toMatchObject({ methodOutput: "draft", crewPause: { request: { kind: "task_review", output: "draft" } } });
    expect(asked).toHaveLength(1);

    setHumanInputProvider(async () => "");
    const again = await Publishing.fromPending(pending.context.flowId);
    expect(await again.resume("Add a title")).toBe("published: draft with a title");
    expect(models.research.calls).toHaveLength(1);
    expect(models.writer.calls).toHaveLength(2);
    expect(userText(models.writer, 1)).toContain("Add a title");
    expect(runs).toEqual({ plan: 1, write: 2, publish: 1 });
  });

  it("without a provider that pauses, a failing crew still fails the flow method", async () => {
    // The agent tries three times (maxRetryLimit 2).
    setUp([final("facts")], [new Error("model down"), new Error("model down"), new Error("model down")]);
    setHumanInputProvider(async () => "yes");
    const failed: string[] = [];
    const off = eventBus.on("method_execution_failed", (e) => void failed.push(e.methodName));
    try {
      await expect(new Publishing().kickoff()).rejects.toThrow(/model down/);
    } finally {
      off();
    }
    expect(failed).toEqual(["write"]);
  });
});
