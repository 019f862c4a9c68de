import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { resolve } from "node:path";
import { CassetteError, readCassette, serializeCassette, writeFileAtomic } from "./cassette/cassetteFile.js";
import type { CassetteData, CassetteExchange, RecordedRequest, RecordedResponse } from "./cassette/cassetteFile.js";
import { closestExchange, requestKey, requestNormalizer, sameAnswer, type CassetteMatchOptions } from "./cassette/matching.js";
import { forwardRequest, upstreamBase, upstreamURL, type CassetteUpstream } from "./cassette/upstream.js";
import { anthropicProtocol } from "./mockServer/anthropicProtocol.js";
import { openaiProtocol } from "./mockServer/openaiProtocol.js";
import type { WireProtocol } from "./mockServer/wireProtocol.js";

export { CassetteError } from "./cassette/cassetteFile.js";
export type { CassetteData, CassetteExchange, RecordedRequest, RecordedResponse } from "./cassette/cassetteFile.js";
export { DEFAULT_IGNORED_FIELDS, type CassetteMatchOptions } from "./cassette/matching.js";
export { DEFAULT_UPSTREAMS, type CassetteUpstream } from "./cassette/upstream.js";

/** record: forward everything and write a fresh cassette; replay: answer from it only; auto: replay what exists, record the rest. */
export type CassetteMode = "record" | "replay" | "auto";

export const CASSETTE_MODES: readonly CassetteMode[] = ["record", "replay", "auto"];

/** Options of startCassetteServer. */
export interface CassetteServerOptions {
  /** Path of the cassette JSON file (relative to the working directory). */
  cassette: string;
  mode: CassetteMode;
  /** Where record and auto modes forward to (default: the real OpenAI and Anthropic APIs, see DEFAULT_UPSTREAMS). */
  upstream?: CassetteUpstream;
  match?: CassetteMatchOptions;
}

/** A request replay could not answer; the client got an HTTP 400 with `message`. */
export interface CassetteMismatch {
  request: RecordedRequest;
  /** The recorded exchange most like it (index into the cassette's exchanges) and where they differ. */
  closest?: { index: number; request: RecordedRequest; difference: string };
  message: string;
}

/** A running cassette server. */
export interface CassetteServer {
  /** "http://127.0.0.1:PORT/v1": pass it as `baseURL` (OpenAI, Anthropic and embeddings alike). */
  url: string;
  mode: CassetteMode;
  /** Absolute path of the cassette file. */
  path: string;
  /** Requests that had no recorded answer, in order; the test should fail when this is not empty. */
  unmatched: CassetteMismatch[];
  /** The cassette's exchanges: as loaded in replay mode, with what was recorded so far otherwise. */
  readonly exchanges: readonly CassetteExchange[];
  /** How many exchanges were forwarded and recorded, and how many answered from the cassette. */
  readonly recorded: number;
  readonly replayed: number;
  /** Stops the server and writes the cassette (record and auto modes); safe to call more than once. */
  close(): Promise<void>;
}

/** Thrown by withCassette (and the test CLI) when requests found no recorded answer. */
export class CassetteMismatchError extends CassetteError {
  override name = "CassetteMismatchError";
  constructor(
    readonly mismatches: readonly CassetteMismatch[],
    options?: ErrorOptions,
  ) {
    super(mismatches.map((m) => m.message).join("\n"), options);
  }
}

const protocolOf = (path: string): "openai" | "anthropic" => (/\/messages$/.test(path) ? "anthropic" : "openai");
const PROTOCOLS: Record<"openai" | "anthropic", WireProtocol> = { openai: openaiProtocol, anthropic: anthropicProtocol };
// Headers whose values are credentials: never stored, and scrubbed from anything written if a body echoes them.
const SECRET_HEADERS = ["authorization", "proxy-authorization", "x-api-key", "api-key", "cookie"];

/**
 * Starts a real HTTP server on 127.0.0.1 that records provider traffic to a cassette file and
 * replays it: requests are matched by method, path and normalised body; repeated identical requests
 * get their recorded answers in order; streamed answers are stored event by event and re-streamed.
 */
export async function startCassetteServer(options: CassetteServerOptions): Promise<CassetteServer> {
  if (!CASSETTE_MODES.includes(options.mode)) {
    throw new CassetteError(`cassette mode must be one of ${CASSETTE_MODES.join(", ")}; got ${JSON.stringify(options.mode)}.`);
  }
  const { mode } = options;
  const path = resolve(options.cassette);
  const existing = await readCassette(path);
  if (mode === "replay" && existing === undefined) {
    throw new CassetteError(`cassette ${path} does not exist, so there is nothing to replay. Record it first: mode "record" or "auto" (CREWTS_CASSETTE_MODE=record).`);
  }
  const normalize = requestNormalizer(options.match);
  // Stored bodies go through today's normaliser too, so changing match options does not orphan a cassette.
  const loaded: CassetteExchange[] = (existing?.exchanges ?? []).map((e) => ({ request: normalize(e.request.method, e.request.path, e.request.body), response: e.response }));
  const byKey = groupByKey(loaded);
  // Record mode writes a fresh cassette, but an answer equal to the old one but for ids and timestamps
  // keeps the old bytes (and is what the client gets), so re-recording leaves the file unchanged.
  const data: CassetteData = { version: 1, exchanges: mode === "auto" ? [...loaded] : [] };
  const seen = new Map<string, number>();
  const secrets = new Set<string>();
  const unmatched: CassetteMismatch[] = [];
  const sockets = new Set<Socket>();
  let recorded = 0;
  let replayed = 0;
  let requestCount = 0;
  let writing: Promise<void> = Promise.resolve();
  let dirty = false;

  const save = (): Promise<void> => {
    dirty = false;
    const text = serializeCassette(data, secrets);
    writing = writing.then(() => writeFileAtomic(path, text));
    return writing;
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const pathAndQuery = req.url ?? "/";
    const urlPath = pathAndQuery.split("?")[0] ?? "/";
    const method = req.method ?? "GET";
    const protocolName = protocolOf(urlPath);
    const sendError = (status: number, message: string) => send(res, { status, headers: {}, json: PROTOCOLS[protocolName].errorBody(status, message) });
    collectSecrets(req, secrets);
    const request = normalize(method, urlPath, parseBody(raw));
    const number = ++requestCount;
    const key = requestKey(request);
    const occurrence = seen.get(key) ?? 0;
    seen.set(key, occurrence + 1);

    if (mode !== "record") {
      const answer = byKey.get(key)?.[occurrence];
      if (answer !== undefined) {
        replayed++;
        return send(res, answer.response);
      }
      if (mode === "replay") {
        const mismatch = describeMismatch(path, request, number, occurrence, loaded);
        unmatched.push(mismatch);
        return sendError(400, mismatch.message);
      }
    }

    const url = upstreamURL(upstreamBase(options.upstream, protocolName), pathAndQuery);
    let response: RecordedResponse;
    try {
      response = await forwardRequest(url, { method, headers: req.headers, body: raw });
    } catch (error) {
      const cause = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
      return sendError(502, `cassette server (${mode} mode) could not reach the upstream ${new URL(url).origin} for ${method} ${urlPath}: ${cause}. Check the upstream option.`);
    }
    const previous = mode === "record" ? byKey.get(key)?.[occurrence] : undefined;
    if (previous !== undefined && sameAnswer(previous.response, response)) response = previous.response;
    data.exchanges.push({ request, response });
    recorded++;
    dirty = true;
    // Written after every exchange, so a test that crashes keeps what it recorded.
    save().catch(() => {});
    send(res, response);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent || res.destroyed) return;
      send(res, { status: 500, headers: {}, json: openaiProtocol.errorBody(500, `cassette server error: ${error instanceof Error ? error.message : String(error)}`) });
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", fail);
      done();
    });
  });
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    mode,
    path,
    unmatched,
    get exchanges() {
      return mode === "replay" ? loaded : data.exchanges;
    },
    get recorded() {
      return recorded;
    },
    get replayed() {
      return replayed;
    },
    close() {
      closing ??= (async () => {
        await new Promise<void>((done) => {
          server.close(() => done());
          for (const socket of sockets) socket.destroy();
        });
        // Record mode always leaves a cassette, even an empty one: the file says the test made no call.
        if (dirty || (mode === "record" && recorded === 0)) await save();
        else await writing;
      })();
      return closing;
    },
  };
}

function groupByKey(exchanges: readonly CassetteExchange[]): Map<string, CassetteExchange[]> {
  const byKey = new Map<string, CassetteExchange[]>();
  for (const exchange of exchanges) {
    const key = requestKey(exchange.request);
    const list = byKey.get(key);
    if (list) list.push(exchange);
    else byKey.set(key, [exchange]);
  }
  return byKey;
}

function describeMismatch(path: string, request: RecordedRequest, number: number, occurrence: number, exchanges: readonly CassetteExchange[]): CassetteMismatch {
  const what = `${request.method} ${request.path} (request #${number})`;
  const fix = `Re-record it: mode "record" or "auto" (CREWTS_CASSETTE_MODE=record).`;
  if (occurrence > 0) {
    const message = `cassette ${path} has no answer for ${what}: this exact request was recorded ${occurrence} time(s) and all were used. ${fix}`;
    return { request, message };
  }
  const closest = closestExchange(request, exchanges);
  if (closest === undefined) return { request, message: `cassette ${path} has no answer for ${what}: the cassette is empty. ${fix}` };
  const other = exchanges[closest.index]!.request;
  const message = `cassette ${path} has no answer for ${what}; closest recorded is exchange ${closest.index} (${other.method} ${other.path}), where ${closest.difference}. ${fix}`;
  return { request, closest: { index: closest.index, request: other, difference: closest.difference }, message };
}

function collectSecrets(req: IncomingMessage, secrets: Set<string>): void {
  for (const name of SECRET_HEADERS) {
    const value = req.headers[name];
    if (typeof value !== "string" || value === "") continue;
    secrets.add(value);
    const token = /^(?:Bearer|Basic)\s+(.+)$/i.exec(value)?.[1];
    if (token !== undefined) secrets.add(token);
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

function parseBody(raw: string): unknown {
  if (raw === "") return "";
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

function send(res: ServerResponse, response: RecordedResponse): void {
  res.statusCode = response.status;
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  if (response.events !== undefined) {
    if (!res.hasHeader("content-type")) res.setHeader("content-type", "text/event-stream");
    for (const event of response.events) res.write(event);
    res.end();
    return;
  }
  if (response.json !== undefined) {
    if (!res.hasHeader("content-type")) res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(response.json));
    return;
  }
  res.end(response.text ?? "");
}
