import { inspect } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { eventBus, type CrewtsEvent } from "../../src/events/index.js";
import { MemoryOptionsError, MemoryWriteError } from "../../src/memory/errors.js";
import { ExternalMemory } from "../../src/memory/ExternalMemory.js";
import { Mem0Error, Mem0Provider } from "../../src/memory/Mem0Provider.js";
import { startFakeMem0, type FakeMem0Server } from "./mem0Server.js";

let server: FakeMem0Server;
beforeAll(async () => {
  server = await startFakeMem0();
});
afterAll(() => server.close());
afterEach(() => {
  server.requests.length = 0;
  eventBus.clear();
  vi.unstubAllEnvs();
});

describe("Mem0Provider", () => {
  it("adds, searches and deletes through Mem0's REST endpoints with a Token header", async () => {
    const provider = new Mem0Provider({ apiKey: server.apiKey, baseURL: `${server.url}/`, userId: "alice", agentId: "writer", orgId: "org1", projectId: "proj1", infer: false });
    await provider.save("Alice prefers window seats", { topic: "travel" });
    const found = await provider.search("window seats", { limit: 4, scoreThreshold: 0.2 });
    await provider.reset();

    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /v1/memories/",
      "POST /v2/memories/search/",
      "DELETE /v1/memories/?user_id=alice&agent_id=writer&org_id=org1&project_id=proj1",
    ]);
    for (const request of server.requests) expect(request.headers.authorization).toBe(`Token ${server.apiKey}`);
    expect(server.requests[0]?.body).toEqual({
      messages: [{ role: "assistant", content: "Alice prefers window seats" }],
      metadata: { topic: "travel" },
      infer: false,
      version: "v2",
      output_format: "v1.1",
      user_id: "alice",
      agent_id: "writer",
      org_id: "org1",
      project_id: "proj1",
    });
    expect(server.requests[1]?.body).toEqual({ query: "window seats", filters: { AND: [{ user_id: "alice" }, { agent_id: "writer" }] }, top_k: 4, threshold: 0.2, org_id: "org1", project_id: "proj1" });
    expect(found).toEqual([{ id: expect.any(String), content: "Alice prefers window seats", score: 1, metadata: { topic: "travel" }, createdAt: expect.any(Number) }]);
    expect(await provider.search("window seats", { limit: 4 })).toEqual([]);
  });

  it("is made from CrewAI's embedderConfig { provider: 'mem0', config: { user_id, api_key, ... } }", async () => {
    const memory = new ExternalMemory({ embedderConfig: { provider: "mem0", config: { user_id: "john", api_key: server.apiKey, base_url: server.url, infer: false } } });
    await memory.save("John flies economy");
    await memory.flush();
    expect(server.requests[0]?.body).toMatchObject({ user_id: "john", infer: false, messages: [{ content: "John flies economy" }] });
    expect((await memory.search("economy flights", { scoreThreshold: 0 })).map((m) => m.content)).toEqual(["John flies economy"]);
    await memory.reset();
    expect(server.requests.at(-1)?.path).toBe("/v1/memories/?user_id=john");
    expect(() => new ExternalMemory({ embedderConfig: { provider: "mem0", config: { user: "john" } } })).toThrow(/config\.user is not a Mem0 setting.*user_id/);
    expect(() => new ExternalMemory({ embedderConfig: { provider: "zep" as never } })).toThrow(MemoryOptionsError);
    expect(() => new ExternalMemory({})).toThrow(/needs a provider/);
    expect(() => new ExternalMemory({ provider: new Mem0Provider({ apiKey: "k", baseURL: server.url }), embedderConfig: { provider: "mem0" } })).toThrow(/not both/);
  });

  it("reads the key from MEM0_API_KEY, defaults the user to crewts, and needs a key", async () => {
    vi.stubEnv("MEM0_API_KEY", server.apiKey);
    const provider = new Mem0Provider({ baseURL: server.url });
    expect(provider.userId).toBe("crewts");
    await provider.save("hello", {});
    expect(server.requests[0]?.body).toMatchObject({ user_id: "crewts", infer: true });
    expect(new Mem0Provider({ baseURL: server.url, runId: "r1" }).userId).toBeUndefined();
    vi.stubEnv("MEM0_API_KEY", "");
    expect(() => new Mem0Provider()).toThrow(MemoryOptionsError);
    expect(() => new Mem0Provider()).toThrow("pass apiKey or set MEM0_API_KEY");
    expect(() => new Mem0Provider({ apiKey: "k", orgId: "o" })).toThrow("give both orgId and projectId");
    expect(() => new Mem0Provider({ apiKey: "k", baseURL: "ftp://x" })).toThrow(/baseURL/);
  });

  it("never shows the key: not in errors, events, JSON or inspect output", async () => {
    const key = "m0-wrong-but-secret-key-987654321";
    const provider = new Mem0Provider({ apiKey: key, baseURL: server.url, userId: "bob" });
    const error: unknown = await provider.search("anything", { limit: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Mem0Error);
    expect((error as Mem0Error).status).toBe(401);
    expect((error as Error).message).toMatch(/HTTP 401.*Check the Mem0 API key/);
    // The server echoed the key back; it must not survive in the message.
    expect(server.requests[0]?.headers.authorization).toBe(`Token ${key}`);
    expect((error as Error).message).not.toContain(key);
    expect((error as Error).message).toContain("[redacted]");
    expect(JSON.stringify(provider)).not.toContain(key);
    expect(JSON.parse(JSON.stringify(provider))).toEqual({ provider: "mem0", baseURL: server.url, userId: "bob" });
    expect(inspect(provider, { depth: 5 })).not.toContain(key);
    expect(JSON.stringify({ ...provider })).not.toContain(key);

    const memory = new ExternalMemory({ provider });
    const events: CrewtsEvent[] = [];
    eventBus.onAny((event) => {
      events.push(event);
    });
    await memory.save("secret plans");
    const flushed: unknown = await memory.flush().catch((e: unknown) => e);
    expect(flushed).toBeInstanceOf(MemoryWriteError);
    expect((flushed as Error).message).toMatch(/external memory failed/);
    expect((flushed as Error).message).not.toContain(key);
    await expect(memory.search("plans")).rejects.toBeInstanceOf(Mem0Error);
    expect(events.map((e) => e.type)).toEqual(["memory_save_started", "memory_save_failed", "memory_query_started", "memory_query_failed"]);
    expect(JSON.stringify(events)).not.toContain(key);
  });

  it("accepts the { results } search shape and reports unreachable servers without the key", async () => {
    const fakeFetch = vi.fn(async (_url: string, _init?: RequestInit) => Response.json({ results: [{ id: "m1", memory: "Likes tea", score: 0.8, metadata: { nested: { a: 1 } }, created_at: "2024-01-02T03:04:05Z" }] }));
    const provider = new Mem0Provider({ apiKey: "m0-another-secret-key-1234", baseURL: "https://mem0.example", fetch: fakeFetch as unknown as typeof fetch });
    expect(await provider.search("tea", { limit: 1 })).toEqual([{ id: "m1", content: "Likes tea", score: 0.8, metadata: { nested: '{"a":1}' }, createdAt: Date.parse("2024-01-02T03:04:05Z") }]);
    expect(fakeFetch.mock.calls[0]?.[0]).toBe("https://mem0.example/v2/memories/search/");

    const down = new Mem0Provider({ apiKey: "m0-another-secret-key-1234", baseURL: "http://127.0.0.1:9", userId: "x" });
    const error: unknown = await down.save("x", {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Mem0Error);
    expect((error as Error).message).toMatch(/Mem0 save failed: could not reach http:\/\/127\.0\.0\.1:9/);
    expect((error as Error).message).not.toContain("m0-another-secret-key-1234");
  });
});
