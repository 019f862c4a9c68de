import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { eventBus } from "../../src/events/index.js";
import { Flow, start as startMethod } from "../../src/flow/index.js";
import { listCheckpointInfos, loadCheckpoint } from "../../src/runtime/checkpoint/checkpointStores.js";
import { createServer, type CrewtsServer } from "../../src/serve/createServer.js";
import { FakeLLM } from "../../src/testing/index.js";
import { echoAnswer, threeTaskCrew } from "./crewFixtures.js";
import { modelStuckOnDraft, nextCrewFailure, parseStream } from "./servedRuns.js";

// In-process kickoffs over real HTTP: /stream carries the run's chunks, and /cancel aborts the run itself.
const TOKEN = "stream-cancel-token";
const location = mkdtempSync(join(tmpdir(), "crewts-served-checkpoints-"));
let open: CrewtsServer[] = [];
afterEach(async () => {
  for (const server of open) await server.close();
  open = [];
  eventBus.clear();
});
afterAll(() => rmSync(location, { recursive: true, force: true }));

async function start(llm: FakeLLM) {
  const server = await createServer({ crew: () => threeTaskCrew(llm), token: TOKEN, graceMs: 2_000, checkpoint: { location } });
  open.push(server);
  const url = await server.listen({ port: 0 });
  const call = (path: string, init: RequestInit = {}) => fetch(url + path, { ...init, headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` } });
  const kickoff = async (inputs: Record<string, unknown>) => ((await (await call("/kickoff", { method: "POST", body: JSON.stringify({ inputs }) })).json()) as { kickoff_id: string }).kickoff_id;
  return { call, kickoff };
}

describe("crewts serve in-process: /stream chunks and cancel", () => {
  it("streams the run's chunks, tagged with task and agent, beside its events", async () => {
    const { call, kickoff } = await start(new FakeLLM((m) => echoAnswer(m), { latencyMs: 5 }));
    const id = await kickoff({ topic: "bees" });
    const events = parseStream(await (await call(`/stream/${id}`)).text());
    const chunks = events.filter((e) => e.type === "chunk");
    // FakeLLM streams word-sized deltas: each task's answer arrives in pieces that add up to it.
    expect(chunks.length).toBeGreaterThan(6);
    for (const [index, step] of ["Outline", "Draft", "Polish"].entries()) {
      const mine = chunks.filter((c) => c.data.taskIndex === index);
      expect(mine.map((c) => c.data.content).join("")).toBe(`${step} of bees done`);
      expect(mine[0]!.data).toMatchObject({ chunkType: "text", agentRole: "Writer on bees", taskName: expect.any(String) });
    }
    // Events still come, in order with the chunks: a task's chunks before its completion.
    const types = events.map((e) => e.type);
    expect(types.filter((t) => t === "task_completed")).toHaveLength(3);
    expect(types.indexOf("chunk")).toBeLessThan(types.indexOf("task_completed"));
    expect(events.at(-1)).toMatchObject({ type: "end", data: { state: "SUCCESS", result: { raw: "Polish of bees done" } } });
  });

  it("tags a served flow's chunks with the method that ran", async () => {
    class ReportFlow extends Flow {
      @startMethod()
      async research() {
        return (await threeTaskCrew(new FakeLLM((m) => echoAnswer(m))).kickoff({ topic: "kites" })).raw;
      }
    }
    const server = await createServer({ flow: () => new ReportFlow(), token: TOKEN, graceMs: 2_000, checkpoint: { location } });
    open.push(server);
    const url = await server.listen({ port: 0 });
    const headers = { "content-type": "application/json", authorization: `Bearer ${TOKEN}` };
    const { kickoff_id: id } = (await (await fetch(`${url}/kickoff`, { method: "POST", headers, body: JSON.stringify({ inputs: {} }) })).json()) as { kickoff_id: string };
    const events = parseStream(await (await fetch(`${url}/stream/${id}`, { headers })).text());
    const chunks = events.filter((e) => e.type === "chunk");
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.every((c) => c.data.methodName === "research" && c.data.agentRole === "Writer on kites")).toBe(true);
    expect(events.some((e) => e.type === "method_execution_finished")).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: "end", data: { state: "SUCCESS", result: "Polish of kites done" } });
  });

  it("cancels a running kickoff within 100 ms: CANCELLED, and its checkpoint resumes the run without its finished task", async () => {
    const { llm, draftStarted } = modelStuckOnDraft();
    const { call, kickoff } = await start(llm);
    const failed = nextCrewFailure();
    const id = await kickoff({ topic: "owls" });
    await draftStarted;
    const asked = performance.now();
    const cancelled = await call(`/cancel/${id}`, { method: "POST" });
    expect(((await cancelled.json()) as { state: string }).state).toBe("CANCELLED");
    // The call in flight never answers: only the abort reaching it ends the run.
    const { at, reason } = await failed;
    expect(reason).toBe("aborted");
    const stoppedMs = at - asked;
    console.log(`in-process cancel stopped the run ${stoppedMs.toFixed(1)} ms after POST /cancel`);
    expect(stoppedMs).toBeLessThan(100);
    expect(((await (await call(`/status/${id}`)).json()) as { state: string }).state).toBe("CANCELLED");

    // The run's lineage is its kickoff id; its newest checkpoint holds the finished first task.
    const infos = await listCheckpointInfos(location, { lineage: id });
    expect(infos.map((i) => i.event)).toEqual(["task_completed"]);
    const checkpoint = await loadCheckpoint(infos.at(-1)!.id, { location });
    expect(checkpoint.inputs).toEqual({ topic: "owls" });
    const fresh = new FakeLLM((m) => echoAnswer(m));
    const resumed = await threeTaskCrew(fresh, { checkpoint: { location } }).kickoff({}, { fromCheckpoint: checkpoint.id });
    expect(resumed.raw).toBe("Polish of owls done");
    expect(resumed.tasksOutput.map((t) => t.raw)).toEqual(["Outline of owls done", "Draft of owls done", "Polish of owls done"]);
    expect(fresh.callCount).toBe(2);
  });
});
