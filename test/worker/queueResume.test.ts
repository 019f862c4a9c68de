import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { eventBus } from "../../src/events/index.js";
import { crewController, flowController } from "../../src/serve/projectController.js";
import { approvalCrews, readStream, ReviewFlow } from "../serve/pauseFixtures.js";
import { queueHarness } from "./queueHarness.js";

// Paused kickoffs through a real Redis queue, their state in a real Postgres: the worker that paused
// is gone by the time the answer comes, and another worker continues the run.
const harness = queueHarness({ token: "queue-resume-token", services: "all" });

/** Points the default stores (flow state, checkpoints) of this process at the file's Postgres. */
function usePostgres(): { localFiles: () => string[] } {
  const previous = { url: process.env.CREWTS_DATABASE_URL, storage: process.env.CREWTS_STORAGE_DIR };
  // Nothing may land in local SQLite files: an empty storage folder that must stay empty.
  const storage = mkdtempSync(join(tmpdir(), "crewts-resume-storage-"));
  process.env.CREWTS_DATABASE_URL = harness.services().databaseUrl!;
  process.env.CREWTS_STORAGE_DIR = storage;
  harness.defer(async () => {
    for (const [key, value] of [["CREWTS_DATABASE_URL", previous.url], ["CREWTS_STORAGE_DIR", previous.storage]] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    rmSync(storage, { recursive: true, force: true });
  });
  return { localFiles: () => readdirSync(storage) };
}

const post = (call: (path: string, init?: RequestInit) => Promise<Response>, path: string, body: unknown) => call(path, { method: "POST", body: JSON.stringify(body) });

describe("POST /resume through the queue", () => {
  it("pauses a flow on one worker, keeps PAUSED in Redis and its state in Postgres, and resumes it on another worker", async () => {
    const postgres = usePostgres();
    // Checkpoints in Postgres too (the default with CREWTS_DATABASE_URL), as a deployment has them.
    const { call, kickoff, worker, addWorker } = await harness.serve(flowController(() => new ReviewFlow(), eventBus), { worker: { checkpoint: {} } });
    const id = await kickoff({ topic: "tides" });
    const stream = readStream(await call(`/stream/${id}`));
    const paused = await stream.until("kickoff_paused");
    expect(paused.data.pending).toMatchObject({ kind: "human_feedback", message: "Publish this draft?", method: "review" });
    // The worker that paused goes away: the pause does not live in it.
    await worker!.close(2_000);
    const status = (await (await call(`/status/${id}`)).json()) as Record<string, unknown>;
    expect(status).toMatchObject({ state: "PAUSED", pending: { kind: "human_feedback", message: "Publish this draft?", output: "draft on tides (reviewed)" } });

    expect((await post(call, "/resume", { kickoff_id: id })).status).toBe(400);
    expect((await post(call, "/resume", { kickoff_id: "nobody", feedback: "x" })).status).toBe(404);
    const resumed = await post(call, "/resume", { kickoff_id: id, feedback: "ship it" });
    expect(resumed.status).toBe(202);
    expect((await post(call, "/resume", { kickoff_id: id, feedback: "again" })).status).toBe(409);
    // Nothing runs it until a worker comes: PENDING, not PAUSED any more.
    expect(((await (await call(`/status/${id}`)).json()) as { state: string }).state).toBe("PENDING");

    const second = await addWorker({ checkpoint: {} });
    const events = await stream.all;
    expect(events.at(-1)).toMatchObject({ type: "end", data: { state: "SUCCESS", result: { published: "draft on tides (reviewed)", feedback: "ship it", log: ["drafted", "published: ship it"] } } });
    // One stream, in order: the paused run's events, the pause, the resumed run's events (numbered on, none twice).
    const types = events.map((e) => e.type);
    expect(types.filter((t) => t === "kickoff_paused")).toHaveLength(1);
    expect(types.indexOf("kickoff_paused")).toBeLessThan(types.lastIndexOf("method_execution_finished"));
    expect(await (await call(`/status/${id}`)).json()).toMatchObject({ state: "SUCCESS", result: { feedback: "ship it" } });
    expect((await post(call, "/resume", { kickoff_id: id, feedback: "late" })).status).toBe(409);
    // A late subscriber reads the same whole log.
    const late = await readStream(await call(`/stream/${id}`)).all;
    expect(late.map((e) => e.type)).toEqual(types);
    expect(second.worker.isRunning()).toBe(true);
    expect(postgres.localFiles()).toEqual([]);
  });

  it("pauses a crew at a tool approval and runs the tool once the approval comes, on any worker", async () => {
    usePostgres();
    const crews = approvalCrews();
    const { call, kickoff } = await harness.serve(crewController(crews.factory, eventBus), { worker: { checkpoint: {} } });
    const id = await kickoff({});
    const stream = readStream(await call(`/stream/${id}`));
    await stream.until("kickoff_paused");
    expect(await (await call(`/status/${id}`)).json()).toMatchObject({ state: "PAUSED", pending: { kind: "tool_approval", tool: "drop_table", tool_input: { table: "logs" } } });
    expect(crews.ran).toEqual([]);
    expect((await post(call, "/resume", { kickoff_id: id, feedback: "yes" })).status).toBe(202);
    expect((await stream.all).at(-1)).toMatchObject({ type: "end", data: { state: "SUCCESS", result: { raw: "cleaned up" } } });
    expect(crews.ran).toEqual(["logs"]);
  });

  it("answers 409 for a kickoff that is not paused, and cancels a paused one for good", async () => {
    usePostgres();
    const { call, kickoff } = await harness.serve(flowController(() => new ReviewFlow(), eventBus), { worker: { checkpoint: false } });
    const id = await kickoff({ topic: "eels" });
    const stream = readStream(await call(`/stream/${id}`));
    await stream.until("kickoff_paused");
    expect((await post(call, `/cancel/${id}`, {})).status).toBe(200);
    expect((await stream.all).at(-1)).toMatchObject({ type: "end", data: { state: "CANCELLED" } });
    const after = await post(call, "/resume", { kickoff_id: id, feedback: "ok" });
    expect(after.status).toBe(409);
    expect(((await after.json()) as { error: string }).error).toMatch(/CANCELLED, not PAUSED/);
  });
});
