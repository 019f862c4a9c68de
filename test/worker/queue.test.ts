import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { eventBus } from "../../src/events/index.js";
import { crewController } from "../../src/serve/projectController.js";
import { FakeLLM, type FakeResponder } from "../../src/testing/index.js";
import { echoAnswer, threeTaskCrew } from "../serve/crewFixtures.js";
import { parseStream } from "../serve/servedRuns.js";
import { queueHarness } from "./queueHarness.js";

const harness = queueHarness({ token: "queue-test-token" });

/** A server enqueueing to a fresh queue and a worker (in this process) taking from it. */
async function setUp(responder: FakeResponder = (m) => echoAnswer(m), latencyMs = 5, options: { attempts?: number } = {}) {
  const llm = new FakeLLM(responder, { latencyMs });
  const { call, kickoff } = await harness.serve(crewController(() => threeTaskCrew(llm), eventBus), options);
  const stream = async (id: string) => parseStream(await (await call(`/stream/${id}`)).text());
  return { call, kickoff, stream, llm };
}

describe("serve with CREWTS_REDIS_URL: kickoffs run by workers through BullMQ", () => {
  it("runs a kickoff on a worker: events relayed to /stream, result in /status", async () => {
    const { call, kickoff, stream, llm } = await setUp();
    const id = await kickoff({ topic: "moths" });
    const events = await stream(id);
    expect(events.filter((e) => e.type === "task_completed").map((e) => e.data.output)).toEqual(["Outline of moths done", "Draft of moths done", "Polish of moths done"]);
    expect(events.at(-1)).toMatchObject({ type: "end", data: { state: "SUCCESS" } });
    const status = (await (await call(`/status/${id}`)).json()) as { state: string; result: { raw: string }; last_step: { type: string } };
    expect(status).toMatchObject({ state: "SUCCESS", result: { raw: "Polish of moths done" }, last_step: { type: "task", output: "Polish of moths done" } });
    expect(llm.callCount).toBe(3);
    // A subscriber that comes after the end gets the whole log and the end.
    const late = await stream(id);
    expect(late.map((e) => e.type)).toEqual(events.map((e) => e.type));
  });

  it("gives a subscriber that comes as the kickoff ends every event, once, before the end", async () => {
    const llm = new FakeLLM((m) => echoAnswer(m));
    const { backend } = await harness.serve(crewController(() => threeTaskCrew(llm), eventBus));
    const events = (id: string) =>
      new Promise<{ types: string[]; end: string }>((resolve) => {
        const types: string[] = [];
        void backend.subscribe(id, (e) => types.push(e.type), (status) => resolve({ types, end: status.state }));
      });
    // Subscribing right after submitting races the worker: the log read, the status read and the
    // live messages interleave differently each time.
    for (let i = 0; i < 25; i++) {
      const id = `race-${i}`;
      await backend.submit(id, { inputs: { topic: `t${i}` } });
      const live = await events(id);
      const late = await events(id);
      expect(live.end).toBe("SUCCESS");
      expect(late.types.length).toBeGreaterThan(0);
      expect(live.types).toEqual(late.types);
    }
  });

  it("retries a failed run with backoff and succeeds on the next attempt", async () => {
    // An agent tries a failing call 3 times before its task fails: 3 failures fail the first attempt.
    let failures = 3;
    const { kickoff, stream, llm } = await setUp((m) => (failures-- > 0 ? new Error("provider hiccup") : echoAnswer(m)));
    const id = await kickoff({ topic: "eels" });
    const events = await stream(id);
    expect(events.some((e) => e.type === "kickoff_retried" && e.data.attempt === 2)).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: "end", data: { state: "SUCCESS", result: { raw: "Polish of eels done" } } });
    expect(llm.callCount).toBe(3 + 3);
  });

  it("fails a kickoff after its last attempt, with the error and no stack", async () => {
    const { call, kickoff, stream, llm } = await setUp(() => new Error("provider down"), 1, { attempts: 2 });
    const id = await kickoff({ topic: "x" });
    const events = await stream(id);
    expect(events.at(-1)).toMatchObject({ type: "end", data: { state: "FAILED", error: expect.stringMatching(/provider down/) } });
    // Two attempts of the kickoff, each an agent's 3 tries of the first call.
    expect(events.filter((e) => e.type === "kickoff_retried").map((e) => e.data.attempt)).toEqual([2]);
    expect(llm.callCount).toBe(2 * 3);
    const status = (await (await call(`/status/${id}`)).json()) as { state: string; error: string };
    expect(status.state).toBe("FAILED");
    expect(status.error).not.toMatch(/\n\s+at /);
  });

  it("cancels a running kickoff through the queue: its worker is told, the kickoff ends CANCELLED, a second cancel is 409", async () => {
    const { call, kickoff, stream } = await setUp((m) => echoAnswer(m), 150);
    const id = await kickoff({ topic: "slow" });
    // Wait until a worker runs it: the first event on /stream comes from the worker.
    const reader = (await call(`/stream/${id}`)).body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value as Uint8Array)).toMatch(/event: crew_kickoff_started/);
    await reader.cancel();
    const cancelled = await call(`/cancel/${id}`, { method: "POST" });
    expect(((await cancelled.json()) as { state: string }).state).toBe("CANCELLED");
    const events = await stream(id);
    expect(events.at(-1)).toMatchObject({ type: "end", data: { state: "CANCELLED" } });
    expect(((await (await call(`/status/${id}`)).json()) as { state: string }).state).toBe("CANCELLED");
    expect((await call(`/cancel/${id}`, { method: "POST" })).status).toBe(409);
    expect((await call("/cancel/no-such-kickoff", { method: "POST" })).status).toBe(404);
  });

  it("posts crew and task webhooks from the worker", async () => {
    const received: { path: string; body: Record<string, unknown> }[] = [];
    let crewArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (crewArrived = resolve));
    const hooks = createHttpServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        received.push({ path: req.url!, body: JSON.parse(body) as Record<string, unknown> });
        res.end();
        if (req.url === "/crew") crewArrived();
      });
    });
    await new Promise<void>((resolve) => hooks.listen(0, "127.0.0.1", resolve));
    harness.defer(async () => void hooks.close());
    const base = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}`;
    const { kickoff } = await setUp();
    const id = await kickoff({ topic: "wasps" }, { taskWebhookUrl: `${base}/task`, crewWebhookUrl: `${base}/crew` });
    await arrived;
    expect(received.map((r) => r.path)).toEqual(["/task", "/task", "/task", "/crew"]);
    expect(received[3]!.body).toMatchObject({ kickoff_id: id, state: "SUCCESS", result: { raw: "Polish of wasps done" } });
  });
});
