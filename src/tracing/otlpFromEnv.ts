import { loadOptional, startTracing, type DisableTracing } from "./enableTracing.js";

/** The environment variable that switches tracing on without code (`otel`). */
export const TRACING_ENV = "CREWTS_TRACING";

/** Raised when CREWTS_TRACING has a value crewts does not know. */
export class TracingConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TracingConfigError";
  }
}

/**
 * Starts tracing from the environment: with `CREWTS_TRACING=otel`, spans go to an OTLP/HTTP
 * exporter configured by the standard variables (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME, read by the
 * exporter and resource packages). Returns undefined, doing nothing, when CREWTS_TRACING is unset.
 */
export async function enableTracingFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<DisableTracing | undefined> {
  const mode = env[TRACING_ENV]?.trim().toLowerCase();
  if (mode === undefined || mode === "" || mode === "off" || mode === "none") return undefined;
  if (mode !== "otel") throw new TracingConfigError(`${TRACING_ENV}="${env[TRACING_ENV]}" is not known. Set it to "otel" (OTLP/HTTP export configured by the OTEL_* variables) or leave it unset.`);
  const [sdk, otlp, resources] = await Promise.all([
    loadOptional("@opentelemetry/sdk-trace-base", () => import("@opentelemetry/sdk-trace-base")),
    loadOptional("@opentelemetry/exporter-trace-otlp-http", () => import("@opentelemetry/exporter-trace-otlp-http")),
    loadOptional("@opentelemetry/resources", () => import("@opentelemetry/resources")),
  ]);
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the default name.
  const resource = resources
    .resourceFromAttributes({ "service.name": "crewts" })
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new sdk.BasicTracerProvider({ resource, spanProcessors: [new sdk.BatchSpanProcessor(new otlp.OTLPTraceExporter())] });
  // Batched spans still waiting when the program ends are sent before it exits.
  const flush = () => void provider.forceFlush().catch(() => undefined);
  process.once("beforeExit", flush);
  return startTracing(
    { tracerProvider: provider, captureContent: env.CREWTS_TRACING_CAPTURE_CONTENT === "true" },
    {
      shutdown: async () => {
        process.off("beforeExit", flush);
        await provider.shutdown();
      },
    },
  );
}
