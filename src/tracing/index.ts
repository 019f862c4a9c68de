import { enableTracingFromEnv } from "./otlpFromEnv.js";

export { enableTracing, TracingUnavailableError, type DisableTracing, type TracingOptions } from "./enableTracing.js";
export { enableTracingFromEnv, TracingConfigError, TRACING_ENV } from "./otlpFromEnv.js";
export { extractTraceContext, injectTraceContext, traceHeaders, withTraceContext } from "./propagation.js";
export type { RemoteSpanContext } from "./traceContext.js";

// CREWTS_TRACING=otel turns tracing on with no code: set up before the program's first kickoff.
// Unset (the default), this reads one variable and loads nothing.
if (process.env.CREWTS_TRACING !== undefined) await enableTracingFromEnv();
