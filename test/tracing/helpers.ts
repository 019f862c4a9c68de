import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { enableTracing, type DisableTracing } from "../../src/tracing/index.js";

/** Tracing into memory: every finished span is kept in `exporter`. */
export async function traceToMemory(captureContent = false): Promise<{ exporter: InMemorySpanExporter; disable: DisableTracing; spans: () => ReadableSpan[] }> {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const disable = await enableTracing({ tracerProvider: provider, captureContent });
  return { exporter, disable, spans: () => exporter.getFinishedSpans() };
}

/** The parent span of `span` among `spans`, undefined for a root. */
export function parentOf(span: ReadableSpan, spans: readonly ReadableSpan[]): ReadableSpan | undefined {
  const parentId = span.parentSpanContext?.spanId;
  return parentId === undefined ? undefined : spans.find((s) => s.spanContext().spanId === parentId);
}

/** The span tree as indented names, children in start order, for whole-shape assertions. */
export function tree(spans: readonly ReadableSpan[]): string[] {
  const lines: string[] = [];
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  const byStart = [...spans].sort((a, b) => compareTime(a.startTime, b.startTime));
  const walk = (parentId: string | undefined, depth: number) => {
    for (const span of byStart) {
      const p = span.parentSpanContext?.spanId;
      const isChild = parentId === undefined ? p === undefined || !ids.has(p) : p === parentId;
      if (!isChild) continue;
      lines.push(`${"  ".repeat(depth)}${span.name}`);
      walk(span.spanContext().spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines;
}

function compareTime(a: [number, number], b: [number, number]): number {
  return a[0] - b[0] || a[1] - b[1];
}
