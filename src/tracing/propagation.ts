import { currentScope, formatTraceparent, parseTraceparent, runInScope, type RemoteSpanContext } from "./traceContext.js";

/**
 * W3C trace context headers (`traceparent`, `tracestate`) of the span running now (a tool call, a
 * flow method, or a parent set by withTraceContext); {} outside any. For outgoing requests (MCP
 * servers, webhooks) so the receiving side continues the trace.
 */
export function traceHeaders(): Record<string, string> {
  const scope = currentScope();
  return scope ? formatTraceparent(scope.spanContext) : {};
}

/** Writes the current trace context (see traceHeaders) into `carrier` (headers, a queued job's fields) and returns it. */
export function injectTraceContext<C extends Record<string, unknown>>(carrier: C = {} as C): C {
  return Object.assign(carrier, traceHeaders());
}

/** Reads a W3C trace context from `carrier` (HTTP headers in any case, a job's fields); undefined when there is none or it is malformed. */
export function extractTraceContext(carrier: Readonly<Record<string, unknown>>): RemoteSpanContext | undefined {
  return parseTraceparent(carrier);
}

/**
 * Runs `fn` with `parent` (a carrier with `traceparent`, or what extractTraceContext returned) as
 * the parent of the crews and flows it kicks off, so a trace started in another process (the
 * caller of `crewts serve`, the process that queued a job) continues here. Without a valid parent
 * `fn` runs as is.
 */
export function withTraceContext<T>(parent: Readonly<Record<string, unknown>> | RemoteSpanContext | undefined, fn: () => T): T {
  const spanContext = parent === undefined ? undefined : isSpanContext(parent) ? parent : parseTraceparent(parent);
  return spanContext ? runInScope({ spanContext }, fn) : fn();
}

function isSpanContext(value: object): value is RemoteSpanContext {
  const v = value as Partial<RemoteSpanContext>;
  return typeof v.traceId === "string" && typeof v.spanId === "string" && typeof v.traceFlags === "number";
}
