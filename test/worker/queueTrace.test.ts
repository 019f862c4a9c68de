import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { eventBus } from "../../src/events/index.js";
import { createServer } from "../../src/serve/createServer.js";
import { crewController } from "../../src/serve/projectController.js";
import { FakeLLM } from "../../src/testing/index.js";
import type { DisableTracing } from "../../src/tracing/index.js";
import { echoAnswer, threeTaskCrew } from "../serve/crewFixtures.js";
import { parseStream } from "../serve/servedRuns.js";
import { traceToMemory } from "../tracing/helpers.js";
import { queueHarness } from "./queueHarness.js";

// The caller's trace continues in the kickoff's spans: serve -> (queue ->) worker -> crew.kickoff.
const harness = queueHarness({ token: "trace-token" });
const TOKEN = "trace-token";
const location = harness.checkpoints;
let disable: DisableTracing | undefined;
afterEach(async () => {
  await disable?.();
  disable = undefined;
});

async function kickoffTraced(url: string): Promise<{ traceId: string; spanId: string; end: Record<string, unknown> }> {
  const traceId = randomBytes(16).toString("hex");
  const spanId = randomBytes(8).toString("hex");
  const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", traceparent: `00-${traceId}-${spanId}-01` };
  const { kickoff_id: id } = (await (await fetch(`${url}/kickoff`, { method: "POST", headers, body: JSON.stringify({ inputs: { topic: "larks" } }) })).json()) as { kickoff_id: string };
  const events = parseStream(await (await fetch(`${url}/stream/${id}`, { headers })).text());
  return { traceId, spanId, end: events.at(-1)!.data };
}

describe("trace context from the server's request to the kickoff's spans", () => {
  it("continues the request's trace in the worker's crew.kickoff span, through the queue", async () => {
    const t = await traceToMemory();
    disable = t.disable;
    const controller = crewController(() => threeTaskCrew(new FakeLLM((m) => echoAnswer(m))), eventBus);
    const { url } = await harness.serve(controller);
    const { traceId, spanId, end } = await kickoffTraced(url);
    expect(end.state).toBe("SUCCESS");
    const kickoff = t.spans().find((s) => s.name === "crew.kickoff")!;
    expect(kickoff.spanContext().traceId).toBe(traceId);
    expect(kickoff.parentSpanContext?.spanId).toBe(spanId);
    // Every span of the run is in the caller's trace.
    expect(new Set(t.spans().map((s) => s.spanContext().traceId))).toEqual(new Set([traceId]));
  });

  it("continues it in-process too, and starts a trace of its own without a traceparent", async () => {
    const t = await traceToMemory();
    disable = t.disable;
    const server = await createServer({ crew: () => threeTaskCrew(new FakeLLM((m) => echoAnswer(m))), token: TOKEN, checkpoint: { location } });
    const url = await server.listen({ port: 0 });
    harness.defer(() => server.close());
    const { traceId, spanId } = await kickoffTraced(url);
    const kickoff = t.spans().find((s) => s.name === "crew.kickoff")!;
    expect(kickoff.spanContext().traceId).toBe(traceId);
    expect(kickoff.parentSpanContext?.spanId).toBe(spanId);

    t.exporter.reset();
    const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
    const { kickoff_id: id } = (await (await fetch(`${url}/kickoff`, { method: "POST", headers, body: JSON.stringify({ inputs: { topic: "wrens" } }) })).json()) as { kickoff_id: string };
    await (await fetch(`${url}/stream/${id}`, { headers })).text();
    const own = t.spans().find((s) => s.name === "crew.kickoff")!;
    expect(own.spanContext().traceId).not.toBe(traceId);
    expect(own.parentSpanContext).toBeUndefined();
  });
});
