import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/** A request the fake Mem0 server received. */
export interface Mem0Request {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

interface StoredMemory {
  id: string;
  memory: string;
  metadata: Record<string, unknown>;
  ids: Record<string, string>;
  created_at: string;
}

/** A local stand-in for Mem0's REST API (add, v2 search, delete all), scoring by shared words. */
export interface FakeMem0Server {
  url: string;
  apiKey: string;
  requests: Mem0Request[];
  memories: StoredMemory[];
  /** Status codes of the next add requests (an entry is used once). */
  failAdds: number[];
  close(): Promise<void>;
}

const words = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
const ID_KEYS = ["user_id", "agent_id", "run_id"];

/** Starts the fake on 127.0.0.1; requests need `Authorization: Token <apiKey>` (a wrong key is echoed back in the 401, as some APIs do). */
export async function startFakeMem0(apiKey = "m0-secret-key-1234567890"): Promise<FakeMem0Server> {
  const state: Omit<FakeMem0Server, "url" | "close"> = { apiKey, requests: [], memories: [], failAdds: [] };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const body: unknown = text === "" ? undefined : JSON.parse(text);
      const url = new URL(req.url ?? "/", "http://localhost");
      state.requests.push({ method: req.method ?? "", path: `${url.pathname}${url.search}`, headers: req.headers, body });
      const send = (status: number, payload: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(payload));
      };
      if (req.headers.authorization !== `Token ${apiKey}`) return send(401, { detail: `Invalid API key: ${req.headers.authorization ?? "none"}` });
      const b = (body ?? {}) as Record<string, unknown>;
      if (req.method === "POST" && url.pathname === "/v1/memories/") {
        const status = state.failAdds.shift();
        if (status !== undefined) return send(status, { detail: "storage unavailable" });
        const messages = b.messages as { role: string; content: string }[];
        const memory: StoredMemory = {
          id: randomUUID(),
          memory: messages.map((m) => m.content).join("\n"),
          metadata: (b.metadata ?? {}) as Record<string, unknown>,
          ids: Object.fromEntries(ID_KEYS.filter((k) => typeof b[k] === "string").map((k) => [k, b[k] as string])),
          created_at: new Date().toISOString(),
        };
        state.memories.push(memory);
        return send(200, [{ id: memory.id, event: "ADD", data: { memory: memory.memory } }]);
      }
      if (req.method === "POST" && url.pathname === "/v2/memories/search/") {
        const conditions = ((b.filters as { AND?: Record<string, string>[] } | undefined)?.AND ?? []).flatMap((c) => Object.entries(c));
        const query = words(String(b.query));
        const results = state.memories
          .filter((m) => conditions.every(([k, v]) => m.ids[k] === v))
          .map((m) => {
            const own = words(m.memory);
            const shared = [...query].filter((w) => own.has(w)).length;
            return { id: m.id, memory: m.memory, metadata: m.metadata, created_at: m.created_at, score: query.size === 0 ? 0 : shared / query.size };
          })
          .filter((r) => r.score > 0 && r.score >= (typeof b.threshold === "number" ? b.threshold : 0))
          .sort((x, y) => y.score - x.score)
          .slice(0, typeof b.top_k === "number" ? b.top_k : 10);
        return send(200, results);
      }
      if (req.method === "DELETE" && url.pathname === "/v1/memories/") {
        const conditions = ID_KEYS.flatMap((k) => (url.searchParams.has(k) ? [[k, url.searchParams.get(k)] as const] : []));
        state.memories = state.memories.filter((m) => !conditions.every(([k, v]) => m.ids[k] === v));
        return send(200, { message: "Memories deleted successfully!" });
      }
      send(404, { detail: "not found" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets would hold close() open until they time out.
        server.closeAllConnections();
      }),
  });
}
