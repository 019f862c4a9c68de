import { performance } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { eventBus } from "../../src/events/index.js";
import { listCheckpointInfos, loadCheckpoint } from "../../src/runtime/checkpoint/checkpointStores.js";
import { crewController, flowController } from "../../src/serve/projectController.js";
import type { RunController } from "../../src/serve/types.js";
import { Flow, listen, start } from "../../src/flow/index.js";
import { FakeLLM } from "../../src/testing/index.js";
import { echoAnswer, threeTaskCrew } from "../serve/crewFixtures.js";
import { modelStuckOnDraft, nextCrewFailure, parseStream } from "../serve/servedRuns.js";
import { queueHarness } from "./queueHarness.js";

// Through a real Redis queue: the worker's chunks reach /stream, /cancel reaches the worker's run, and a retried kickoff resumes from its checkpoint.
const harness = queueHarness({ token: "queue-stream-token" });
const location = harness.checkpoints;

async function setUp(llm: FakeLLM, controller: RunController = crewController(() => threeTaskCrew(llm), eventBus)) {
  const { call, kickoff } = await harness.serve(controller);
  return { call, kickoff };
}

describe("serve with a queue: /stream chunks and cancel through workers", () => {
  it("relays the worker's chunks, tagged with task and agent, beside its events", async () => {
    const { call, kickoff } = await setUp(new FakeLLM((m) => echoAnswer(m), { latencyMs: 5 }));
    const id = await kickoff({ topic: "moths" });
    const events = parseStream(await (await call(`/stream/${id}`)).text());
    const chunks = events.filter((e) => e.type === "chunk");
    for (const [index, step] of ["Outline", "Draft", "Polish"].entries()) {
      const mine = chunks.filter((c) => c.data.taskIndex === index);
      expect(mine.length).toBeGreaterThan(1);
      expect(mine.map((c) => c.data.content).join("")).toBe(`${step} of moths done`);
      expect(mine[0]!.data).toMatchObject({ chunkType: "text", agentRole: "Writer on moths", taskName: expect.any(String) });
    }
    expect(events.filter((e) => e.type === "task_completed")).toHaveLength(3);
    expect(events.at(-1)).toMatchObject({ type: "end", data: { state: "SUCCESS", result: { raw: "Polish of moths done" } } });
  });

  it("cancels a kickoff running on a worker within 100 ms: CANCELLED, with a checkpoint that resumes it", async () => {
    const { llm, draftStarted } = modelStuckOnDraft();
    const { call, kickoff } = await setUp(llm);
    const failed = nextCrewFailure();
    const id = await kickoff({ topic: "newts" });
    await draftStarted;
    const asked = performance.now();
    const cancelled = await call(`/cancel/${id}`, { method: "POST" });
    expect(((await cancelled.json()) as { state: string }).state).toBe("CANCELLED");
    const { at, reason } = await failed;
    expect(reason).toBe("aborted");
    const stoppedMs = at - asked;
    console.log(`queued cancel stopped the worker's run ${stoppedMs.toFixed(1)} ms after POST /cancel`);
    expect(stoppedMs).toBeLessThan(100);
    const events = parseStream(await (await call(`/stream/${id}`)).text());
    expect(events.at(-1)).toMatchObject({ type: "end", data: { state: "CANCELLED" } });
    expect(((await (await call(`/status/${id}`)).json()) as { state: string }).state).toBe("CANCELLED");

    const infos = await listCheckpointInfos(location, { lineage: id });
    expect(infos.map((i) => i.event)).toEqual(["task_completed"]);
    const fresh = new FakeLLM((m) => echoAnswer(m));
    const resumed = await threeTaskCrew(fresh, { checkpoint: { location } }).kickoff({}, { fromCheckpoint: (await loadCheckpoint(infos[0]!.id, { location })).id });
    expect(resumed.tasksOutput.map((t) => t.raw)).toEqual(["Outline of newts done", "Draft of newts done", "Polish of newts done"]);
    expect(fresh.callCount).toBe(2);
  });

  it("retries a failed crew kickoff from its newest checkpoint: the finished task is not run again", async () => {
    // The second task's call fails 3 times (an agent's tries): the first attempt fails after the first task.
    let failures = 3;
    const llm = new FakeLLM((m) => {
      const answer = echoAnswer(m);
      return answer.startsWith("Draft") && failures-- > 0 ? new Error("provider hiccup") : answer;
    });
    const { call, kickoff } = await setUp(llm);
    const id = await kickoff({ topic: "crows" });
    const events = parseStream(await (await call(`/stream/${id}`)).text());
    const retried = events.find((e) => e.type === "kickoff_retried")!;
    const lineage = await listCheckpointInfos(location, { lineage: id });
    expect(retried.data).toMatchObject({ attempt: 2, fromCheckpoint: lineage[0]!.id });
    expect(events.at(-1)).toMatchObject({ type: "end", data: { state: "SUCCESS", result: { raw: "Polish of crows done" } } });
    // Outline once, Draft 3 failed tries and 1 good one, Polish once: a restart from the beginning would be 7.
    expect(llm.callCount).toBe(1 + 3 + 1 + 1);
    expect(lineage.map((i) => i.event)).toEqual(["task_completed", "task_completed", "task_completed"]);
  });

  it("retries a failed flow kickoff from its newest checkpoint: finished methods are not run again", async () => {
    const ran: string[] = [];
    let failOnce = true;
    class TwoStepFlow extends Flow {
      @start()
      async gather() {
        ran.push("gather");
        return "facts";
      }
      @listen("gather")
      async write(facts: unknown) {
        ran.push("write");
        if (failOnce) {
          failOnce = false;
          throw new Error("write failed once");
        }
        return `report on ${String(facts)}`;
      }
    }
    const { call, kickoff } = await setUp(new FakeLLM(() => "unused"), flowController(() => new TwoStepFlow(), eventBus));
    const id = await kickoff({});
    const events = parseStream(await (await call(`/stream/${id}`)).text());
    expect(events.find((e) => e.type === "kickoff_retried")?.data.fromCheckpoint).toEqual(expect.any(String));
    expect(events.at(-1)).toMatchObject({ type: "end", data: { state: "SUCCESS", result: "report on facts" } });
    expect(ran).toEqual(["gather", "write", "write"]);
  });
});
