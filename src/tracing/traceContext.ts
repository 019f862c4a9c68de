import { AsyncLocalStorage } from "node:async_hooks";
import type { Context } from "@opentelemetry/api";

/** A span context as W3C `traceparent`/`tracestate` carry it between processes. */
export interface RemoteSpanContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
  traceState?: string;
}

/** What runs started here nest under: a span of this process (`context`), or a parent received from another one. */
export interface TraceScope {
  /** The OpenTelemetry context holding the span (absent for a remote parent). */
  context?: Context;
  /** The W3C identity of that span, local or remote. */
  spanContext: RemoteSpanContext;
}

// The scope of the code running now. Parents inside a run are found from the events' ids; this
// only links whole runs to what started them (a flow method, a tool, a remote caller).
const scopes = new AsyncLocalStorage<TraceScope>();

/** The trace scope of the code running now, if any. */
export function currentScope(): TraceScope | undefined {
  return scopes.getStore();
}

/** Runs `fn` inside `scope`. */
export function runInScope<T>(scope: TraceScope, fn: () => T): T {
  return scopes.run(scope, fn);
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const INVALID_TRACE = "0".repeat(32);
const INVALID_SPAN = "0".repeat(16);

/** Parses a W3C `traceparent` (and `tracestate`) from `carrier`; undefined when absent or malformed. */
export function parseTraceparent(carrier: Readonly<Record<string, unknown>>): RemoteSpanContext | undefined {
  const header = headerValue(carrier, "traceparent");
  const match = header === undefined ? null : TRACEPARENT.exec(header.trim().toLowerCase());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [string, string, string, string, string, string | undefined];
  // Version ff is forbidden; version 00 has nothing after the flags.
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (traceId === INVALID_TRACE || spanId === INVALID_SPAN) return undefined;
  const state = headerValue(carrier, "tracestate");
  return { traceId, spanId, traceFlags: parseInt(flags, 16), ...(state ? { traceState: state } : {}) };
}

/** The W3C headers of `span`: `traceparent`, and `tracestate` when it has one. */
export function formatTraceparent(span: RemoteSpanContext): Record<string, string> {
  const headers: Record<string, string> = {
    traceparent: `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xff).toString(16).padStart(2, "0")}`,
  };
  if (span.traceState) headers.tracestate = span.traceState;
  return headers;
}

// Carriers are header objects: names may come in any case, values as arrays (node:http).
function headerValue(carrier: Readonly<Record<string, unknown>>, name: string): string | undefined {
  let value = carrier[name];
  if (value === undefined) {
    const key = Object.keys(carrier).find((k) => k.toLowerCase() === name);
    if (key !== undefined) value = carrier[key];
  }
  if (Array.isArray(value)) value = value[0];
  return typeof value === "string" ? value : undefined;
}
