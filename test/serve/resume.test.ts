import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eventBus } from "../../src/events/index.js";
import { createServer, type CreateServerOptions, type CrewtsServer } from "../../src/serve/createServer.js";
import { approvalCrews, readStream, ReviewFlow } from "./pauseFixtures.js";

const TOKEN = "resume-test-token";
let dir = "";
let previousStorage: string | undefined;
let server: CrewtsServer | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "crewts-serve-resume-"));
  // A paused flow's state goes to the default flow persistence (SQLite in the storage folder).
  previousStorage = process.env.CREWTS_STORAGE_DIR;
  process.env.CREWTS_STORAGE_DIR = dir;
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  eventBus.clear();
  if (previousStorage === undefined) delete process.env.CREWTS_STORAGE_DIR;
  else process.env.CREWTS_STORAGE_DIR = previousStorage;
  await rm(dir, { recursive: true, force: true });
});

async function serve(options: Omit<CreateServerOptions, "token" | "checkpoint">) {
  server = await createServer({ ...options, token: TOKEN, checkpoint: { location: join(dir, "checkpoints") } });
  const url = await server.listen({ port: 0 });
  const call = (path: string, init: RequestInit = {}) => fetch(url + path, { ...init, headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" } });
  const post = (path: string, body: unknown) => call(path, { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body) });
  const kickoff = async (inputs: Record<string, unknown>) => ((await (await post("/kickoff", { inputs })).json()) as { kickoff_id: string }).kickoff_id;
  const status = async (id: string) => (await (await call(`/status/${id}`)).json()) as Record<string, unknown>;
  return { call, post, kickoff, status };
}

describe("POST /resume on an in-process server", () => {
  it("pauses a flow at @humanFeedback (PAUSED with the question, a kickoff_paused event) and resumes it with the feedback", async () => {
    const { call, post, kickoff, status } = await serve({ flow: () => new ReviewFlow() });
    const id = await kickoff({ topic: "tides" });
    const stream = readStream(await call(`/stream/${id}`));
    const paused = await stream.until("kickoff_paused");
    expect(paused.data.pending).toEqual({ kind: "human_feedback", message: "Publish this draft?", method: "review", output: "draft on tides (reviewed)" });
    expect(await status(id)).toMatchObject({ state: "PAUSED", pending: { kind: "human_feedback", message: "Publish this draft?" } });

    // Bad bodies are refused before anything else; the stream stays open while the run waits.
    expect((await post("/resume", "{not json")).status).toBe(400);
    expect((await post("/resume", { kickoff_id: id })).status).toBe(400);
    expect((await post("/resume", { kickoff_id: id, feedback: "ok", extra: 1 })).status).toBe(400);
    expect((await post("/resume", { kickoff_id: "no-such-kickoff", feedback: "ok" })).status).toBe(404);

    const resumed = await post("/resume", { kickoff_id: id, feedback: "ship it" });
    expect(resumed.status).toBe(202);
    expect(await resumed.json()).toEqual({ kickoff_id: id, state: "RUNNING" });
    // The same pause is answered once.
    const again = await post("/resume", { kickoff_id: id, feedback: "twice" });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: string }).error).toMatch(/not PAUSED/);

    const events = await stream.all;
    const end = events.at(-1)!;
    expect(end).toMatchObject({ type: "end", data: { state: "SUCCESS", result: { published: "draft on tides (reviewed)", feedback: "ship it", log: ["drafted", "published: ship it"] } } });
    // One stream from kickoff to end: the pause, then the resumed run's methods.
    const types = events.map((e) => e.type);
    expect(types.indexOf("kickoff_paused")).toBeLessThan(types.lastIndexOf("method_execution_finished"));
    expect(await status(id)).toMatchObject({ state: "SUCCESS" });
    expect((await status(id)).pending).toBeUndefined();
    // Over: resuming again is a conflict, not a new run.
    expect((await post("/resume", { kickoff_id: id, feedback: "late" })).status).toBe(409);
  });

  it("pauses a crew at a tool that needs approval and runs the tool once the approval comes", async () => {
    const crews = approvalCrews();
    const { call, post, kickoff, status } = await serve({ crew: crews.factory });
    const id = await kickoff({});
    const stream = readStream(await call(`/stream/${id}`));
    await stream.until("kickoff_paused");
    const paused = await status(id);
    expect(paused).toMatchObject({ state: "PAUSED", pending: { kind: "tool_approval", tool: "drop_table", tool_input: { table: "logs" }, agent: "Admin" } });
    expect(typeof (paused.pending as { message: string }).message).toBe("string");
    expect(crews.ran).toEqual([]);

    expect((await post("/resume", { kickoff_id: id, feedback: "yes" })).status).toBe(202);
    const end = (await stream.all).at(-1)!;
    expect(end).toMatchObject({ type: "end", data: { state: "SUCCESS", result: { raw: "cleaned up" } } });
    expect(crews.ran).toEqual(["logs"]);
  });

  it("answers 409 for a running kickoff and cancels a paused one", async () => {
    const { call, post, kickoff, status } = await serve({ flow: () => new ReviewFlow() });
    const id = await kickoff({ topic: "eels" });
    const stream = readStream(await call(`/stream/${id}`));
    await stream.until("kickoff_paused");
    const cancelled = await post(`/cancel/${id}`, {});
    expect(cancelled.status).toBe(200);
    expect((await stream.all).at(-1)).toMatchObject({ type: "end", data: { state: "CANCELLED" } });
    expect(await status(id)).toMatchObject({ state: "CANCELLED" });
    expect((await post("/resume", { kickoff_id: id, feedback: "ok" })).status).toBe(409);
  });
});
