import { createServer } from "node:http";
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { REDACTED } from "../llm/redact.js";
import { anthropicProtocol } from "./mockServer/anthropicProtocol.js";
import { embeddingsResponse, parseEmbeddingsRequest } from "./mockServer/embeddingsProtocol.js";
import { openaiModelList, openaiProtocol } from "./mockServer/openaiProtocol.js";
import { echoResponse, toScriptedAnswer } from "./mockServer/scriptedAnswer.js";
import type { MockFault, MockOpenAIServer, MockRequest, MockResponse, MockServerOptions } from "./mockServer/types.js";
import type { CompletionRequest, ScriptedAnswer, WireProtocol } from "./mockServer/wireProtocol.js";

export type { MockFault, MockOpenAIServer, MockRequest, MockResponder, MockResponse, MockServerOptions, MockStreamEvent } from "./mockServer/types.js";

const DEFAULT_MODEL = "mock-model";
// Headers that carry credentials; recorded requests end up in test output and logs.
const SECRET_HEADERS = new Set(["authorization", "proxy-authorization", "x-api-key", "api-key"]);

type Endpoint = "chat" | "messages" | "models" | "responses" | "embeddings";

/** Thrown when a completion request cannot be given an answer; becomes an HTTP 500. */
class MockAnswerError extends Error {}

/**
 * Starts a real HTTP server on 127.0.0.1 (OS-assigned port) speaking the OpenAI chat completions and
 * Anthropic Messages APIs, JSON and SSE, answering from a script, and the OpenAI embeddings API with
 * deterministic bag-of-words vectors (see mockEmbedding).
 */
export async function startMockOpenAIServer(options: MockServerOptions = {}): Promise<MockOpenAIServer> {
  const requests: MockRequest[] = [];
  const sockets = new Set<Socket>();
  const pendingDelays = new Set<() => void>();
  let answersUsed = 0;

  async function nextResponse(record: MockRequest, request: CompletionRequest): Promise<MockResponse> {
    const script = options.responses;
    if (script === undefined) return echoResponse(request);
    const answerIndex = answersUsed;
    if (typeof script === "function") {
      answersUsed++;
      try {
        return await script(record, answerIndex);
      } catch (error) {
        throw new MockAnswerError(`mock responder failed for request #${record.index}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    const response = script[answerIndex];
    if (response === undefined) {
      throw new MockAnswerError(
        `mock server has no scripted response left for request #${record.index}; add one to responses ` +
          `(${script.length} given, all used)`,
      );
    }
    answersUsed++;
    return response;
  }

  /** Resolves true once the delay has passed, false if the client went away first (nothing left to answer). */
  function delay(ms: number, res: ServerResponse): Promise<boolean> {
    return new Promise((resolve) => {
      if (!res.socket || res.socket.destroyed) return resolve(false);
      const finish = (elapsed: boolean) => {
        clearTimeout(timer);
        res.off("close", onClose);
        pendingDelays.delete(onClose);
        resolve(elapsed);
      };
      const onClose = () => finish(false);
      const timer = setTimeout(() => finish(true), ms);
      res.once("close", onClose);
      pendingDelays.add(onClose);
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const parsed = parseJson(raw);
    const record: MockRequest = { method: req.method ?? "GET", path, headers: redactHeaders(req.headers), body: parsed.value, index: requests.length };
    requests.push(record);

    const endpoint = endpointOf(record.method, path);
    // Errors take the shape of the protocol the client speaks, so its SDK can parse them.
    const protocol: WireProtocol = endpoint === "messages" || /\/messages$/.test(path) ? anthropicProtocol : openaiProtocol;
    const fault: MockFault | undefined = options.faults?.[record.index];
    const extraHeaders = fault?.headers ?? {};
    const sendError = (status: number, message: string) => send(res, status, JSON.stringify(protocol.errorBody(status, message)), extraHeaders);

    if (fault?.delayMs !== undefined && fault.delayMs > 0 && !(await delay(fault.delayMs, res))) return;
    if (fault?.status !== undefined) {
      if (fault.body !== undefined) send(res, fault.status, fault.body, extraHeaders);
      else sendError(fault.status, `mock fault injected for request #${record.index} (HTTP ${fault.status})`);
      return;
    }
    if (fault?.body !== undefined) return send(res, 200, fault.body, extraHeaders);

    if (endpoint === undefined) return sendError(404, `mock server has no route ${record.method} ${path}; it serves POST /v1/chat/completions, POST /v1/messages, POST /v1/embeddings and GET /v1/models`);
    if (endpoint === "responses") {
      return sendError(404, "mock server speaks the chat completions API, not the Responses API: use openai.chat(model) or @ai-sdk/openai-compatible");
    }
    if (endpoint === "models") return send(res, 200, JSON.stringify(openaiModelList(options.model ?? DEFAULT_MODEL)), extraHeaders);
    if (!parsed.ok) return sendError(400, `the request body is not valid JSON: ${parsed.error}`);
    if (endpoint === "embeddings") {
      const embeddings = parseEmbeddingsRequest(parsed.value);
      if (typeof embeddings === "string") return sendError(400, embeddings);
      const model = embeddings.model ?? options.model ?? DEFAULT_MODEL;
      return send(res, 200, JSON.stringify(embeddingsResponse(model, embeddings.input, embeddings.dimensions)), extraHeaders);
    }
    const request = protocol.parseRequest(parsed.value);
    if (typeof request === "string") return sendError(400, request);

    let answer: ScriptedAnswer;
    try {
      const response = await nextResponse(record, request);
      answer = toScriptedAnswer(response, request, (i) => `${protocol.toolCallIdPrefix}_mock_${record.index}_${i}`);
    } catch (error) {
      return sendError(500, error instanceof Error ? error.message : String(error));
    }
    const meta = { id: `${endpoint === "messages" ? "msg" : "chatcmpl"}_mock_${record.index}`, model: request.model ?? options.model ?? DEFAULT_MODEL, created: Math.floor(Date.now() / 1000) };
    if (!request.stream) return send(res, 200, JSON.stringify(protocol.jsonResponse(answer, meta)), extraHeaders);
    res.statusCode = 200;
    setHeaders(res, { "content-type": "text/event-stream", "cache-control": "no-cache" }, extraHeaders);
    const events = protocol.streamEvents(answer, meta, request.includeUsage);
    for (let index = 0; index < events.length; index++) {
      const data = events[index]!;
      if (index > 0) {
        if (options.streamDelayMs && !(await delay(options.streamDelayMs, res))) return;
        if (options.beforeStreamEvent) await options.beforeStreamEvent({ request: record, index, data });
        // The client may have gone away (cancelled) while the event was held.
        if (res.destroyed || res.writableEnded) return;
      }
      res.write(data);
    }
    res.end();
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A client that vanished mid-request leaves nothing to answer; anything else is a mock bug worth surfacing.
      if (res.headersSent || res.destroyed) return;
      send(res, 500, JSON.stringify(openaiProtocol.errorBody(500, `mock server error: ${error instanceof Error ? error.message : String(error)}`)), {});
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const cancel of [...pendingDelays]) cancel();
        // Keep-alive and in-flight connections would otherwise hold close() (and the process) open.
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}

function endpointOf(method: string, path: string): Endpoint | undefined {
  // Accept paths with and without the /v1 prefix, whichever base URL the client was given.
  const route = path.replace(/^\/v1(?=\/)/, "");
  if (method === "POST" && route === "/chat/completions") return "chat";
  if (method === "POST" && route === "/messages") return "messages";
  if (method === "POST" && route === "/responses") return "responses";
  if (method === "POST" && route === "/embeddings") return "embeddings";
  if (method === "GET" && route === "/models") return "models";
  return undefined;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

function parseJson(raw: string): { ok: true; value: unknown } | { ok: false; value: string; error: string } {
  if (raw === "") return { ok: false, value: raw, error: "the body is empty" };
  try {
    return { ok: true, value: JSON.parse(raw) as unknown };
  } catch (error) {
    return { ok: false, value: raw, error: error instanceof Error ? error.message : String(error) };
  }
}

function redactHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = SECRET_HEADERS.has(name) ? REDACTED : Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function setHeaders(res: ServerResponse, defaults: Record<string, string>, extra: Record<string, string>): void {
  // setHeader is case-insensitive, so a fault's "Content-Type" replaces the default.
  for (const [name, value] of Object.entries(defaults)) res.setHeader(name, value);
  for (const [name, value] of Object.entries(extra)) res.setHeader(name, value);
}

function send(res: ServerResponse, status: number, body: string, extraHeaders: Record<string, string>): void {
  res.statusCode = status;
  setHeaders(res, { "content-type": "application/json" }, extraHeaders);
  res.end(body);
}
