import type { CrewtsEvent } from "./types.js";

/**
 * What tracing (src/tracing) lends the core while it is on. Everything else tracing needs comes
 * from events; these two cover what events cannot: code run "inside" a span (a crew kicked off in
 * a flow method or a tool) and HTTP headers of a provider request.
 */
export interface TraceHooks {
  /** Runs `fn` so that runs started inside it nest under the span opened for `event`. */
  within<T>(event: CrewtsEvent, fn: () => T): T;
  /** W3C trace context headers (`traceparent`, `tracestate`) for the HTTP request of LLM call `callId`. */
  llmHeaders(callId: string): Record<string, string> | undefined;
}

/** The hooks of enabled tracing; undefined when tracing is off, so call sites cost one read. */
export let traceHooks: TraceHooks | undefined;

/** Installs (or, with undefined, removes) the tracing hooks. */
export function setTraceHooks(hooks: TraceHooks | undefined): void {
  traceHooks = hooks;
}

/** Runs `fn` inside the span of `event` when tracing is on; otherwise just runs it. */
export function withinEvent<T>(event: CrewtsEvent | undefined, fn: () => T): T {
  return traceHooks !== undefined && event !== undefined ? traceHooks.within(event, fn) : fn();
}
