import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Redis } from "ioredis";
import type { RunEvent } from "../../src/serve/types.js";
import { EventRelay } from "../../src/worker/eventRelay.js";
import type { EventMessage } from "../../src/worker/QueueRuns.js";
import { connectRedis, subscriberOf } from "../../src/worker/redisQueue.js";
import { startLocalServices, type LocalServices } from "../services/localServices.js";

// The worker's relay of a run's events to Redis, against a real Redis: batched, in order, none lost.
let services: LocalServices;
let client: Redis;
let subscriber: Redis;
beforeAll(async () => {
  services = await startLocalServices("redis");
  client = await connectRedis(services.redisUrl!);
  subscriber = await subscriberOf(client);
}, 60_000);
afterAll(async () => {
  await subscriber?.quit();
  await client?.quit();
  await services?.stop();
}, 30_000);

/** Collects the messages published on `channel`; `until(n)` resolves once n events arrived. */
async function listen(channel: string) {
  const messages: EventMessage[] = [];
  let waiting: { count: number; resolve: () => void } | undefined;
  const received = () => messages.reduce((n, m) => n + ("events" in m ? m.events.length : 1), 0);
  subscriber.on("message", (from: string, text: string) => {
    if (from !== channel) return;
    messages.push(JSON.parse(text) as EventMessage);
    if (waiting && received() >= waiting.count) waiting.resolve();
  });
  await subscriber.subscribe(channel);
  return {
    messages,
    until: (count: number) => (received() >= count ? Promise.resolve() : new Promise<void>((resolve) => (waiting = { count, resolve }))),
  };
}

const chunk = (n: number): RunEvent => ({ type: "chunk", content: `token ${n} `, taskIndex: 0 });

describe("EventRelay", () => {
  it("writes bursts of chunks as a few batches, numbered on from the log, in order and complete", async () => {
    const channel = "relay-test:events:a";
    const log = "relay-test:log:a";
    // A retried job appends to a log that already holds 2 events.
    await client.rpush(log, JSON.stringify({ type: "earlier" }), JSON.stringify({ type: "earlier" }));
    const heard = await listen(channel);
    const relay = new EventRelay(client, { log, channel, step: "relay-test:step:a", keepSeconds: 60 });

    // 250 chunks in one burst (more than a batch holds), then a task's end, then chunks a few at a time across timer turns.
    for (let n = 0; n < 250; n++) relay.push(chunk(n));
    relay.push({ type: "task_completed", taskName: "Draft", output: "draft" });
    for (let n = 250; n < 260; n++) {
      relay.push(chunk(n));
      if (n % 3 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await relay.flush();
    await heard.until(261);

    const batches = heard.messages.filter((m): m is { i: number; events: RunEvent[] } => "events" in m);
    expect(batches.length).toBe(heard.messages.length);
    // Far fewer messages than events: 250 at once make batches of 100.
    expect(batches.length).toBeLessThanOrEqual(10);
    expect(batches[0]!.events).toHaveLength(100);
    // Contiguous numbering from the log's length, and every event once, in the order pushed.
    let expected = 2;
    for (const batch of batches) {
      expect(batch.i).toBe(expected);
      expected += batch.events.length;
    }
    const relayed = batches.flatMap((b) => b.events);
    const contents = relayed.filter((e) => e.type === "chunk").map((e) => e.content);
    expect(contents).toEqual(Array.from({ length: 260 }, (_, n) => `token ${n} `));
    expect(relayed.findIndex((e) => e.type === "task_completed")).toBe(250);
    // The log holds the same events after the earlier ones, kept for a while; the task's step is the last step.
    const stored = (await client.lrange(log, 0, -1)).map((line) => JSON.parse(line) as RunEvent);
    expect(stored.slice(2)).toEqual(relayed);
    expect(await client.ttl(log)).toBeGreaterThan(0);
    expect(JSON.parse((await client.get("relay-test:step:a"))!)).toEqual({ type: "task", name: "Draft", output: "draft" });
    expect(relay.lastStep).toEqual({ type: "task", name: "Draft", output: "draft" });
  });

  it("sends a lone event within a few milliseconds without an explicit flush", async () => {
    const channel = "relay-test:events:b";
    const heard = await listen(channel);
    const relay = new EventRelay(client, { log: "relay-test:log:b", channel, step: "relay-test:step:b", keepSeconds: 60 });
    relay.push({ type: "crew_kickoff_started" });
    await heard.until(1);
    expect(heard.messages).toEqual([{ i: 0, events: [{ type: "crew_kickoff_started" }] }]);
    // No step among them: none recorded.
    expect(await client.exists("relay-test:step:b")).toBe(0);
  });
});
