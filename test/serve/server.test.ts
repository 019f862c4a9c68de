import { createServer as createHttpServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { eventBus } from "../../src/events/index.js";
import { bearerMatches, isLoopback } from "../../src/serve/auth.js";
import { createServer, type CrewtsServer } from "../../src/serve/createServer.js";
import { FakeLLM } from "../../src/testing/index.js";
import { echoAnswer, threeTaskCrew } from "./crewFixtures.js";

const TOKEN = "s3cret-token-for-tests";
let open: CrewtsServer[] = [];
afterEach(async () => {
  for (const server of open) await server.close();
  open = [];
  eventBus.clear();
});

// Kickoffs write their checkpoints here (a lineage per kickoff id), not into the repository.
const checkpoints = mkdtempSync(join(tmpdir(), "crewts-serve-checkpoints-"));
afterAll(() => rmSync(checkpoints, { recursive: true, force: true }));

async function start(options: Partial<Parameters<typeof createServer>[0]> = {}, llm = new FakeLLM((m) => echoAnswer(m), { latencyMs: 5 })) {
  const server = await createServer({ crew: () => threeTaskCrew(llm), token: TOKEN, graceMs: 2_000, checkpoint: { location: checkpoints }, ...options });
  open.push(server);
  const url = await server.listen({ port: 0 });
  const call = (path: string, init: RequestInit & { auth?: boolean } = {}) =>
    fetch(url + path, { ...init, headers: { "content-type": "application/json", ...(init.auth === false ? {} : { authorization: `Bearer ${TOKEN}` }), ...(init.headers ?? {}) } });
  return { server, url, call, llm };
}

async function waitForEnd(call: (path: string) => Promise<Response>, id: string): Promise<Record<string, unknown>> {
  // /stream ends with the final status: waiting on it is waiting on the run, no polling.
  const response = await call(`/stream/${id}`);
  const text = await response.text();
  const end = text.split("\n\n").find((block) => block.startsWith("event: end"));
  return JSON.parse(end!.split("\n").find((line) => line.startsWith("data: "))!.slice(6)) as Record<string, unknown>;
}

describe("crewts serve: security", () => {
  it("answers 401 without or with a wrong token on every route but /health", async () => {
    const { call } = await start();
    for (const [method, path] of [["GET", "/inputs"], ["POST", "/kickoff"], ["GET", "/status/x"], ["GET", "/stream/x"], ["POST", "/cancel/x"], ["POST", "/resume"], ["GET", "/openapi.json"]] as const) {
      const none = await call(path, { method, auth: false, body: method === "POST" ? "{}" : undefined });
      expect(none.status, `${method} ${path}`).toBe(401);
      expect(await none.json()).toEqual({ error: expect.stringContaining("bearer token") });
      const wrong = await call(path, { method, auth: false, headers: { authorization: `Bearer ${TOKEN}x` }, body: method === "POST" ? "{}" : undefined });
      expect(wrong.status).toBe(401);
    }
    const health = await call("/health", { auth: false });
    expect(health.status).toBe(200);
  });

  it("compares tokens through hashes: equal-length, longer, shorter and empty tokens are all refused", () => {
    expect(bearerMatches(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(bearerMatches(`bearer   ${TOKEN}`, TOKEN)).toBe(true);
    for (const bad of [TOKEN.replace(/.$/, "X"), `${TOKEN}1`, TOKEN.slice(0, 3), "", `Basic ${TOKEN}`]) {
      expect(bearerMatches(bad.startsWith("Basic") ? bad : `Bearer ${bad}`, TOKEN)).toBe(false);
    }
    expect(bearerMatches(undefined, TOKEN)).toBe(false);
  });

  it("refuses to listen beyond loopback without a token, and accepts loopback without one", async () => {
    const server = await createServer({ crew: () => threeTaskCrew(new FakeLLM(["x"])), token: "" });
    open.push(server);
    await expect(server.listen({ port: 0, host: "0.0.0.0" })).rejects.toThrow(/Refusing to listen on 0\.0\.0\.0 without a token/);
    expect(isLoopback("127.0.0.1") && isLoopback("::1") && isLoopback("localhost")).toBe(true);
    expect(isLoopback("0.0.0.0") || isLoopback("10.0.0.1") || isLoopback("::")).toBe(false);
    const url = await server.listen({ port: 0, host: "127.0.0.1" });
    expect((await fetch(`${url}/inputs`)).status).toBe(200);
  });

  it("answers 413 for a body over the limit, declared or streamed", async () => {
    const { call, url } = await start({ bodyLimit: 10_000 });
    const huge = JSON.stringify({ inputs: { topic: "x".repeat(20_000) } });
    const response = await call("/kickoff", { method: "POST", body: huge });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: "Request body larger than 10000 bytes." });
    // Chunked, without a content-length.
    const chunked = await new Promise<number>((resolve, reject) => {
      const u = new URL(`${url}/kickoff`);
      const req = request(
        { host: u.hostname, port: u.port, path: u.pathname, method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "transfer-encoding": "chunked" } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      for (let i = 0; i < 30; i++) req.write("x".repeat(1000));
      req.end();
    });
    expect(chunked).toBe(413);
  });

  it("answers 400 for invalid JSON, invalid bodies and missing or invalid inputs, naming the problem", async () => {
    const { call } = await start();
    const cases: [string, RegExp][] = [
      ["{not json", /not valid JSON/],
      ["[1,2]", /Invalid kickoff body/],
      [JSON.stringify({ inputs: "topic=AI" }), /inputs/],
      [JSON.stringify({ inputs: { topic: null } }), /inputs\.topic/],
      [JSON.stringify({ inputs: { topic: "AI" }, extra: 1 }), /extra/],
      [JSON.stringify({ inputs: { topic: "AI" }, webhooks: { crewWebhookUrl: "file:///etc/passwd" } }), /webhooks\.crewWebhookUrl: must be an http\(s\) URL/],
      [JSON.stringify({ inputs: {} }), /Missing inputs: topic/],
    ];
    for (const [body, message] of cases) {
      const response = await call("/kickoff", { method: "POST", body });
      expect(response.status, body).toBe(400);
      expect(((await response.json()) as { error: string }).error).toMatch(message);
    }
    const resume = await call("/resume", { method: "POST", body: JSON.stringify({ kickoff_id: "x" }) });
    expect(resume.status).toBe(400);
  });

  it("never puts a stack trace in a response, even when the crew factory throws", async () => {
    const stderr: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => (stderr.push(String(chunk)), true));
    try {
      const { call } = await start({
        crew: () => {
          throw new Error("database password hunter2 rejected");
        },
      });
      const inputs = await call("/inputs");
      expect(inputs.status).toBe(500);
      const text = await inputs.text();
      expect(JSON.parse(text)).toEqual({ error: "Internal server error." });
      expect(text).not.toMatch(/\bat \S+ \(|hunter2|\.ts:\d+/);
      for (const path of ["/status/nope", "/nope"]) {
        const response = await call(path);
        expect(response.status).toBe(404);
        expect(await response.text()).not.toMatch(/\bat \S+ \(/);
      }
    } finally {
      process.stderr.write = write;
    }
    expect(stderr.join("")).toMatch(/GET \/inputs failed/);
  });
});

describe("crewts serve: in-process kickoffs over HTTP", () => {
  it("lists the inputs, runs a kickoff to SUCCESS with the crew's output, and streams its events in order", async () => {
    const { call, llm } = await start();
    expect(await (await call("/inputs")).json()).toEqual({ inputs: ["topic"] });
    const kicked = await call("/kickoff", { method: "POST", body: JSON.stringify({ inputs: { topic: "bees" } }) });
    expect(kicked.status).toBe(202);
    const { kickoff_id: id } = (await kicked.json()) as { kickoff_id: string };
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    const streamed = await (await call(`/stream/${id}`)).text();
    const types = [...streamed.matchAll(/^event: (\S+)$/gm)].map((m) => m[1]);
    expect(types[0]).toBe("crew_kickoff_started");
    expect(types.filter((t) => t === "task_completed")).toHaveLength(3);
    expect(types.at(-1)).toBe("end");
    expect(types.indexOf("crew_kickoff_completed")).toBe(types.length - 2);

    const status = (await (await call(`/status/${id}`)).json()) as { state: string; result: { raw: string; tasksOutput: unknown[] }; last_step: unknown };
    expect(status.state).toBe("SUCCESS");
    expect(status.result.raw).toBe("Polish of bees done");
    expect(status.result.tasksOutput).toHaveLength(3);
    expect(status.last_step).toEqual({ type: "task", name: expect.any(String), output: "Polish of bees done" });
    expect(llm.callCount).toBe(3);
  });

  it("keeps the events of concurrent kickoffs apart", async () => {
    const { call } = await start();
    const ids = await Promise.all(
      ["ants", "bats", "cats", "dogs"].map(async (topic) => ((await (await call("/kickoff", { method: "POST", body: JSON.stringify({ inputs: { topic } }) })).json()) as { kickoff_id: string }).kickoff_id),
    );
    const streams = await Promise.all(ids.map(async (id) => (await call(`/stream/${id}`)).text()));
    for (const [i, topic] of ["ants", "bats", "cats", "dogs"].entries()) {
      const completed = [...streams[i]!.matchAll(/^data: (.*"type":"task_completed".*)$/gm)].map((m) => (JSON.parse(m[1]!) as { output: string }).output);
      expect(completed).toEqual([`Outline of ${topic} done`, `Draft of ${topic} done`, `Polish of ${topic} done`]);
    }
  });

  it("reports a failing kickoff as FAILED with the error's message, no stack", async () => {
    const { call } = await start({}, new FakeLLM(() => new Error("model exploded")));
    const { kickoff_id: id } = (await (await call("/kickoff", { method: "POST", body: JSON.stringify({ inputs: { topic: "x" } }) })).json()) as { kickoff_id: string };
    const end = await waitForEnd(call, id);
    expect(end.state).toBe("FAILED");
    expect(String(end.error)).toMatch(/model exploded/);
    expect(String(end.error)).not.toMatch(/\n\s+at /);
  });

  it("cancels a running kickoff: CANCELLED at once, 409 for a second cancel, 404 for an unknown id", async () => {
    const { call } = await start({}, new FakeLLM((m) => echoAnswer(m), { latencyMs: 300 }));
    const { kickoff_id: id } = (await (await call("/kickoff", { method: "POST", body: JSON.stringify({ inputs: { topic: "x" } }) })).json()) as { kickoff_id: string };
    const cancelled = await call(`/cancel/${id}`, { method: "POST" });
    expect(cancelled.status).toBe(200);
    expect(((await cancelled.json()) as { state: string }).state).toBe("CANCELLED");
    expect((await call(`/cancel/${id}`, { method: "POST" })).status).toBe(409);
    expect((await call("/cancel/nope", { method: "POST" })).status).toBe(404);
    expect(((await (await call(`/status/${id}`)).json()) as { state: string }).state).toBe("CANCELLED");
  });

  it("answers /resume with 404 for an unknown kickoff and 409 for one that is not paused", async () => {
    const { call } = await start();
    expect((await call("/resume", { method: "POST", body: JSON.stringify({ kickoff_id: "nope", feedback: "ok" }) })).status).toBe(404);
    const { kickoff_id: id } = (await (await call("/kickoff", { method: "POST", body: JSON.stringify({ inputs: { topic: "x" } }) })).json()) as { kickoff_id: string };
    await waitForEnd(call, id);
    const response = await call("/resume", { method: "POST", body: JSON.stringify({ kickoff_id: id, feedback: "ok" }) });
    expect(response.status).toBe(409);
    expect(((await response.json()) as { error: string }).error).toMatch(/SUCCESS, not PAUSED/);
  });

  it("serves an OpenAPI document naming every route", async () => {
    const { call } = await start();
    const doc = (await (await call("/openapi.json")).json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths).sort()).toEqual(["/cancel/{kickoff_id}", "/health", "/inputs", "/kickoff", "/openapi.json", "/resume", "/status/{kickoff_id}", "/stream/{kickoff_id}"].filter((p) => p !== "/openapi.json").sort());
  });

  it("posts task and crew webhooks to a real HTTP endpoint", async () => {
    const received: { path: string; body: Record<string, unknown> }[] = [];
    let allArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (allArrived = resolve));
    const hooks = createHttpServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        received.push({ path: req.url!, body: JSON.parse(body) as Record<string, unknown> });
        res.end("ok");
        if (req.url === "/crew") allArrived();
      });
    });
    await new Promise<void>((resolve) => hooks.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}`;
    try {
      const { call } = await start();
      const body = { inputs: { topic: "owls" }, webhooks: { taskWebhookUrl: `${base}/task`, crewWebhookUrl: `${base}/crew` } };
      const { kickoff_id: id } = (await (await call("/kickoff", { method: "POST", body: JSON.stringify(body) })).json()) as { kickoff_id: string };
      await arrived;
      expect(received.map((r) => r.path)).toEqual(["/task", "/task", "/task", "/crew"]);
      expect(received.every((r) => r.body.kickoff_id === id)).toBe(true);
      expect(received[3]!.body).toMatchObject({ state: "SUCCESS", result: { raw: "Polish of owls done" } });
    } finally {
      hooks.close();
    }
  });

  it("on close lets a running kickoff finish within the grace period and refuses new ones", async () => {
    const { server, call } = await start({}, new FakeLLM((m) => echoAnswer(m), { latencyMs: 50 }));
    const { kickoff_id: id } = (await (await call("/kickoff", { method: "POST", body: JSON.stringify({ inputs: { topic: "x" } }) })).json()) as { kickoff_id: string };
    const backendStatus = async () => ((await (await server.fetch(new Request(`http://local/status/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } }))).json()) as { state: string }).state;
    await server.close();
    open = [];
    expect(await backendStatus()).toBe("SUCCESS");
    const late = await server.fetch(new Request("http://local/kickoff", { method: "POST", headers: { authorization: `Bearer ${TOKEN}` }, body: JSON.stringify({ inputs: { topic: "y" } }) }));
    expect(late.status).toBe(503);
  });

  it("aborts kickoffs still running when the grace period ends, as CANCELLED", async () => {
    const { server, call } = await start({ graceMs: 50 }, new FakeLLM((m) => echoAnswer(m), { latencyMs: 400 }));
    const { kickoff_id: id } = (await (await call("/kickoff", { method: "POST", body: JSON.stringify({ inputs: { topic: "x" } }) })).json()) as { kickoff_id: string };
    await server.close();
    open = [];
    const status = (await (await server.fetch(new Request(`http://local/status/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } }))).json()) as { state: string; error: string };
    expect(status).toMatchObject({ state: "CANCELLED", error: expect.stringMatching(/shut down/) });
  });
});
