import type * as OtelApiModule from "@opentelemetry/api";
import type { Attributes, Context, Span, Tracer } from "@opentelemetry/api";
import type { CrewtsEvent, EventSource } from "../events/index.js";
import { redactSecrets } from "../llm/redact.js";
import { currentScope, formatTraceparent, type RemoteSpanContext, type TraceScope } from "./traceContext.js";

type OtelApi = typeof OtelApiModule;

/** Where a span is filed: a kind ("t" for a task span) then the ids its events carry. */
export type SpanKey = readonly string[];

/** One level of the key paths: the spans filed under the path so far, and the next levels. */
interface KeyNode {
  stack: OpenSpan[] | undefined;
  next: Map<string, KeyNode> | undefined;
}

/** One open span, with what it was opened under so that ending a run ends what it left open. */
interface OpenSpan {
  span: Span;
  key: SpanKey;
  /** The context the span was started in; the span's own context is made from it on first need. */
  parentContext: Context;
  context: Context | undefined;
  parent: OpenSpan | undefined;
  /** Spans opened under this one and still open (made on the first child). */
  children: OpenSpan[] | undefined;
}

/** Span attributes and span-event text are cut to this size; prompts can be huge. */
const MAX_CONTENT_CHARS = 16_000;

/**
 * Turns crewts events into OpenTelemetry spans. Each span is filed under a key made of the ids its
 * events carry (kickoff, task, agent, call ids), and a span's parent is found the same way, so
 * concurrent runs never share a parent. A whole run (crew or flow) nests under the span of the code
 * that started it (a flow method, a tool, a remote caller), found through the async trace scope.
 */
export class RunTracer {
  private readonly open: KeyNode = { stack: undefined, next: undefined };
  // The span opened for a start event, for code that runs inside it (see TraceHooks.within).
  private readonly byEvent = new WeakMap<object, OpenSpan>();
  // Read once: the API module's exports are getters, and these are used for every span.
  private readonly trace: OtelApi["trace"];
  private readonly contexts: OtelApi["context"];
  private readonly clientKind: OtelApi["SpanKind"]["CLIENT"];
  private readonly errorCode: OtelApi["SpanStatusCode"]["ERROR"];

  constructor(
    private readonly api: OtelApi,
    private readonly tracer: Tracer,
    private readonly captureContent: boolean,
  ) {
    this.trace = api.trace;
    this.contexts = api.context;
    this.clientKind = api.SpanKind.CLIENT;
    this.errorCode = api.SpanStatusCode.ERROR;
  }

  /** Opens span `name` under key `key`, its parent being the first open key of `parents` (else the scope). */
  start(event: CrewtsEvent, key: SpanKey, name: string, parents: (SpanKey | undefined)[], attributes: Attributes, kind?: "client"): Span {
    let parent: OpenSpan | undefined;
    for (const candidate of parents) {
      parent = candidate === undefined ? undefined : this.top(candidate);
      if (parent) break;
    }
    const parentContext = parent ? this.contextOf(parent) : this.scopeContext(currentScope());
    const span = this.tracer.startSpan(name, kind === "client" ? { attributes, kind: this.clientKind } : { attributes }, parentContext);
    const entry: OpenSpan = { span, key, parentContext, context: undefined, parent, children: undefined };
    if (parent) (parent.children ??= []).push(entry);
    (this.node(key, true)!.stack ??= []).push(entry);
    // Only these run code inside their span (TraceHooks.within).
    if (event.type === "tool_usage_started" || event.type === "method_execution_started") this.byEvent.set(event, entry);
    return span;
  }

  /** The open span filed under `key` (the latest one), if any. */
  span(key: SpanKey): Span | undefined {
    return this.top(key)?.span;
  }

  /** Ends the latest span under `key` (OK, or ERROR with `error` recorded), ending what it left open first. */
  end(key: SpanKey, attributes?: Attributes, error?: string): boolean {
    const node = this.node(key, false);
    const entry = node?.stack?.pop();
    if (!entry || !node) return false;
    if (node.stack!.length === 0) this.prune(key);
    this.detach(entry);
    this.endChildren(entry);
    if (attributes) entry.span.setAttributes(attributes);
    if (error !== undefined) this.fail(entry.span, error);
    entry.span.end();
    return true;
  }

  /** Records `error` (secrets redacted) on `span` and sets its status to ERROR. */
  fail(span: Span, error: string): void {
    const message = redactSecrets(error);
    span.recordException({ name: "Error", message });
    span.setStatus({ code: this.errorCode, message });
  }

  /** The scope of the span opened for `event`, for code that runs inside that span. */
  scopeOf(event: object): TraceScope | undefined {
    const entry = this.byEvent.get(event);
    return entry ? { context: this.contextOf(entry), spanContext: spanContextOf(entry.span) } : undefined;
  }

  /** The span context of the llm.call span `callId`, as W3C headers. */
  headersOf(key: SpanKey): Record<string, string> | undefined {
    const span = this.top(key)?.span;
    return span ? formatTraceparent(spanContextOf(span)) : undefined;
  }

  /** The OpenTelemetry context for a trace scope: its span, a remote parent, or the active context. */
  scopeContext(scope: TraceScope | undefined): Context {
    if (scope?.context) return scope.context;
    if (scope) {
      const { traceId, spanId, traceFlags, traceState } = scope.spanContext;
      const state = traceState ? this.api.createTraceState(traceState) : undefined;
      return this.trace.setSpanContext(this.api.ROOT_CONTEXT, { traceId, spanId, traceFlags, isRemote: true, ...(state ? { traceState: state } : {}) });
    }
    return this.contexts.active();
  }

  /** Text for a span attribute or event when content is captured; undefined otherwise. */
  content(value: unknown): string | undefined {
    if (!this.captureContent) return undefined;
    const text = typeof value === "string" ? value : safeJson(value);
    return redactSecrets(text.length > MAX_CONTENT_CHARS ? `${text.slice(0, MAX_CONTENT_CHARS)}…` : text);
  }

  /** Whether prompts, completions, inputs and outputs go on spans. */
  get capturing(): boolean {
    return this.captureContent;
  }

  /** Ends every open span (tracing is being switched off). */
  endAll(): void {
    const endIn = (node: KeyNode) => {
      for (const entry of node.stack ?? []) entry.span.end();
      for (const child of node.next?.values() ?? []) endIn(child);
    };
    endIn(this.open);
    this.open.stack = undefined;
    this.open.next = undefined;
  }

  private top(key: SpanKey): OpenSpan | undefined {
    const stack = this.node(key, false)?.stack;
    return stack?.[stack.length - 1];
  }

  // The node at `key`, made (with the levels above it) when `create` and missing.
  private node(key: SpanKey, create: boolean): KeyNode | undefined {
    let node = this.open;
    for (const part of key) {
      let next = node.next?.get(part);
      if (!next) {
        if (!create) return undefined;
        next = { stack: undefined, next: undefined };
        (node.next ??= new Map()).set(part, next);
      }
      node = next;
    }
    return node;
  }

  // Drops the levels of `key` left empty, so ids of finished runs are not kept.
  private prune(key: SpanKey): void {
    const path: KeyNode[] = [this.open];
    for (const part of key) {
      const next = path[path.length - 1]!.next?.get(part);
      if (!next) return;
      path.push(next);
    }
    // The first level, the kinds of span, is a handful of nodes kept for good.
    for (let i = key.length; i > 1; i--) {
      const node = path[i]!;
      if ((node.stack?.length ?? 0) > 0 || (node.next?.size ?? 0) > 0) return;
      path[i - 1]!.next!.delete(key[i - 1]!);
    }
  }

  // Most spans have no child (an llm.call), so their context holding them is made only when one starts.
  private contextOf(entry: OpenSpan): Context {
    return (entry.context ??= this.trace.setSpan(entry.parentContext, entry.span));
  }

  // Takes an ended span off its parent's list of open children.
  private detach(entry: OpenSpan): void {
    const siblings = entry.parent?.children;
    if (!siblings) return;
    const i = siblings.lastIndexOf(entry);
    if (i < 0) return;
    const last = siblings.pop()!;
    if (i < siblings.length) siblings[i] = last;
  }

  // A span whose end event never came (a tool whose retry was cut short, a run that threw) ends with its parent.
  private endChildren(entry: OpenSpan): void {
    const children = entry.children;
    if (!children || children.length === 0) return;
    entry.children = undefined;
    for (const child of children) {
      const stack = this.node(child.key, false)?.stack;
      const i = stack ? stack.lastIndexOf(child) : -1;
      if (stack && i >= 0) {
        stack.splice(i, 1);
        if (stack.length === 0) this.prune(child.key);
      }
      this.endChildren(child);
      child.span.end();
    }
  }
}

/** The key part naming one crew kickoff (or the crew, for events from before kickoff ids). */
export function runOf(event: EventSource): string {
  return event.kickoffId ?? event.crewId ?? "";
}

function spanContextOf(span: Span): RemoteSpanContext {
  const ctx = span.spanContext();
  const state = ctx.traceState?.serialize();
  return { traceId: ctx.traceId, spanId: ctx.spanId, traceFlags: ctx.traceFlags, ...(state ? { traceState: state } : {}) };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
