import { randomUUID } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { eventBus } from "../events/EventBus.js";
import { loadOptionalPeer } from "../storage/optionalPeer.js";
import { bearerMatches, isLoopback, ServerConfigError } from "./auth.js";
import { extractTraceContext, injectTraceContext, withTraceContext } from "../tracing/propagation.js";
import { InProcessRuns, ServerClosingError, type InProcessRunsOptions } from "./InProcessRuns.js";
import { openApiDocument } from "./openapi.js";
import { crewController, flowController, type CrewFactory, type FlowFactory } from "./projectController.js";
import { describeIssues, kickoffBodySchema, resumeBodySchema } from "./requests.js";
import type { RunEventSource } from "./runEvents.js";
import { type RunBackend, type RunController, type RunEvent, type RunStatus } from "./types.js";

/** Options of createServer: what to run (one of crew, flow, controller) and how to guard it. */
export interface CreateServerOptions {
  /** Makes a fresh crew per kickoff. */
  crew?: CrewFactory;
  /** Makes a fresh flow per kickoff. */
  flow?: FlowFactory;
  /** Runs kickoffs some other way (the seam crews and flows are put behind). */
  controller?: RunController;
  /** Where kickoffs run; default: in this process. A queue backend (crewts worker) goes here. */
  backend?: RunBackend;
  /** The bearer token every route but /health needs; default CREWTS_SERVER_TOKEN. */
  token?: string;
  /** Largest request body in bytes; default 1 MiB. */
  bodyLimit?: number;
  /** How long running kickoffs may go on after close() before they are aborted; default 30 s. */
  graceMs?: number;
  /** The event bus kickoffs emit on; default crewts's. */
  eventBus?: RunEventSource;
  /** Shown in /openapi.json. */
  version?: string;
  /** In-process kickoffs: where they write checkpoints (see InProcessRunsOptions.checkpoint). */
  checkpoint?: InProcessRunsOptions["checkpoint"];
}

/** A running crewts HTTP server. */
export interface CrewtsServer {
  /** The Hono app's request handler (for tests, or to mount elsewhere). */
  fetch(request: Request): Response | Promise<Response>;
  /** Starts listening; refuses a non-loopback host without a token. Resolves with the URL. */
  listen(options?: { port?: number; host?: string }): Promise<string>;
  /** Stops accepting connections, gives running kickoffs `graceMs` to finish, aborts the rest. */
  close(): Promise<void>;
}

/** Builds the HTTP API of a crew or flow (CrewAI's deployment API: /inputs, /kickoff, /status, /resume). */
export async function createServer(options: CreateServerOptions): Promise<CrewtsServer> {
  const { Hono } = await loadOptionalPeer(() => import("hono"), "hono@^4", "crewts serve and createServer");
  const { bodyLimit } = await import("hono/body-limit");
  const { streamSSE } = await import("hono/streaming");
  const token = options.token ?? process.env.CREWTS_SERVER_TOKEN ?? undefined;
  const controller = options.controller ?? pickController(options);
  const backend = options.backend ?? new InProcessRuns(controller, options.checkpoint !== undefined ? { checkpoint: options.checkpoint } : {});
  const graceMs = options.graceMs ?? 30_000;
  const limit = options.bodyLimit ?? 1024 * 1024;

  const app = new Hono();
  app.onError((error, c) => {
    // Never a stack trace (nor a message that may hold internals) in a response; one line on stderr.
    process.stderr.write(`crewts serve: ${c.req.method} ${c.req.path} failed: ${error.name}: ${error.message}\n`);
    return c.json({ error: "Internal server error." }, 500);
  });
  app.notFound((c) => c.json({ error: `No route ${c.req.method} ${c.req.path}. See GET /openapi.json.` }, 404));

  app.get("/health", (c) => c.json({ status: "ok" }));
  app.use("*", async (c, next) => {
    if (token && !bearerMatches(c.req.header("authorization"), token)) {
      c.header("WWW-Authenticate", "Bearer");
      return c.json({ error: "Missing or wrong bearer token: send Authorization: Bearer <CREWTS_SERVER_TOKEN>." }, 401);
    }
    await next();
  });
  app.use("*", bodyLimit({ maxSize: limit, onError: (c) => c.json({ error: `Request body larger than ${limit} bytes.` }, 413) }));

  const readJson = async (request: Request): Promise<{ ok: true; value: unknown } | { ok: false; error: string }> => {
    const text = await request.text();
    try {
      return { ok: true, value: JSON.parse(text) as unknown };
    } catch {
      return { ok: false, error: "The request body is not valid JSON." };
    }
  };

  app.get("/openapi.json", (c) => c.json(openApiDocument(options.version ?? "0")));
  app.get("/inputs", async (c) => c.json({ inputs: await controller.inputs() }));

  app.post("/kickoff", async (c) => {
    const body = await readJson(c.req.raw);
    if (!body.ok) return c.json({ error: body.error }, 400);
    const parsed = kickoffBodySchema.safeParse(body.value);
    if (!parsed.success) return c.json({ error: `Invalid kickoff body: ${describeIssues(parsed.error)}.` }, 400);
    const missing = (await controller.inputs()).filter((name) => !(name in parsed.data.inputs));
    if (missing.length) return c.json({ error: `Missing inputs: ${missing.join(", ")}. GET /inputs lists what the kickoff needs.` }, 400);
    const id = randomUUID();
    try {
      const trace = callerTrace(c.req.header());
      await backend.submit(id, { inputs: parsed.data.inputs, ...(parsed.data.webhooks ? { webhooks: parsed.data.webhooks } : {}), ...(trace ? { trace } : {}) });
    } catch (error) {
      if (error instanceof ServerClosingError) return c.json({ error: error.message }, 503);
      throw error;
    }
    return c.json({ kickoff_id: id }, 202);
  });

  app.get("/status/:id", async (c) => {
    const status = await backend.status(c.req.param("id"));
    return status ? c.json(status) : c.json({ error: `No kickoff ${c.req.param("id")}.` }, 404);
  });

  app.post("/cancel/:id", async (c) => {
    const id = c.req.param("id");
    const outcome = await backend.cancel(id);
    if (outcome === "unknown") return c.json({ error: `No kickoff ${id}.` }, 404);
    // A cancelled run may already be gone from the backend (its worker stopped at once): the cancel is what counts.
    const status: RunStatus = (await backend.status(id)) ?? { state: "CANCELLED" };
    if (outcome === "finished") return c.json({ error: `Kickoff ${id} already ended (${status.state}).` }, 409);
    return c.json(outcome === "cancelled" ? { ...status, state: "CANCELLED" } : status);
  });

  app.post("/resume", async (c) => {
    const body = await readJson(c.req.raw);
    if (!body.ok) return c.json({ error: body.error }, 400);
    const parsed = resumeBodySchema.safeParse(body.value);
    if (!parsed.success) return c.json({ error: `Invalid resume body: ${describeIssues(parsed.error)}.` }, 400);
    const id = parsed.data.kickoff_id;
    let outcome: Awaited<ReturnType<RunBackend["resume"]>>;
    try {
      outcome = await backend.resume(id, parsed.data.feedback, callerTrace(c.req.header()));
    } catch (error) {
      if (error instanceof ServerClosingError) return c.json({ error: error.message }, 503);
      throw error;
    }
    if (outcome === "unknown") return c.json({ error: `No kickoff ${id}.` }, 404);
    if (outcome === "not_paused") {
      const state = (await backend.status(id))?.state ?? "gone";
      return c.json({ error: `Kickoff ${id} is ${state}, not PAUSED: only a paused kickoff can be resumed (once).` }, 409);
    }
    return c.json({ kickoff_id: id, state: "RUNNING" }, 202);
  });

  app.get("/stream/:id", async (c) => {
    const id = c.req.param("id");
    if (!(await backend.status(id))) return c.json({ error: `No kickoff ${id}.` }, 404);
    return streamSSE(c, async (stream) => {
      let writes: Promise<void> = Promise.resolve();
      const send = (event: string, data: unknown): void => {
        writes = writes.then(() => stream.writeSSE({ event, data: JSON.stringify(data) })).catch(() => {});
      };
      let ended!: () => void;
      const over = new Promise<void>((resolve) => (ended = resolve));
      const off = await backend.subscribe(
        id,
        (event: RunEvent) => send(event.type, event),
        (status: RunStatus) => {
          send("end", status);
          ended();
        },
      );
      stream.onAbort(() => ended());
      await over;
      off?.();
      await writes;
    });
  });

  let server: Server | undefined;
  return {
    fetch: (request) => app.fetch(request),
    async listen({ port = 8000, host = "127.0.0.1" } = {}) {
      if (!token && !isLoopback(host)) {
        throw new ServerConfigError(`Refusing to listen on ${host} without a token: anyone who can reach it could run the crew. Set CREWTS_SERVER_TOKEN (or --token), or listen on 127.0.0.1.`);
      }
      const { serve } = await loadOptionalPeer(() => import("@hono/node-server"), "@hono/node-server@^1", "crewts serve");
      return new Promise<string>((resolve, reject) => {
        const s = serve({ fetch: app.fetch, port, hostname: host }, (info: AddressInfo) => {
          const shown = info.family === "IPv6" ? `[${info.address}]` : info.address;
          resolve(`http://${shown}:${info.port}`);
        }) as Server;
        s.once("error", reject);
        server = s;
      });
    },
    async close() {
      const closed = server ? new Promise<void>((resolve) => server!.close(() => resolve())) : Promise.resolve();
      // Open /stream connections end as their kickoffs end; idle keep-alive ones go now.
      server?.closeIdleConnections();
      await backend.close(graceMs);
      server?.closeAllConnections();
      await closed;
    },
  };
}

function pickController(options: CreateServerOptions): RunController {
  const given = [options.crew, options.flow].filter((f) => f !== undefined).length;
  if (given !== 1) throw new TypeError("createServer needs exactly one of crew (a crew factory), flow (a flow factory) or controller.");
  const bus = options.eventBus ?? eventBus;
  return options.crew ? crewController(options.crew, bus) : flowController(options.flow!, bus);
}

/** The caller's W3C trace context (its `traceparent` header, validated), for the kickoff's spans to continue. */
function callerTrace(headers: Record<string, string>): Record<string, string> | undefined {
  const parent = extractTraceContext(headers);
  return parent && withTraceContext(parent, () => injectTraceContext({}));
}
