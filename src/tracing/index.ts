import { enableTracingFromEnv } from "./otlpFromEnv.js";

export { enableTracing, TracingUnavailableError, type DisableTracing, type TracingOptions } from "./enableTracing.js";
export { enableTracingFromEnv, TracingConfigError, TRACING_ENV } from "./otlpFromEnv.js";
export { extractTraceContext, injectTraceContext, traceHeaders, withTraceContext } from "./propagation.js";
export type { RemoteSpanContext } from "./traceContext.js";

import type { DisableTracing } from "./enableTracing.js";

/**
 * Switches off the tracing that CREWTS_TRACING=otel started when crewts was imported (undefined
 * when it is unset). Set up before the program's first kickoff; unset, this reads one variable and
 * loads nothing. An exported value, not a bare statement, so bundlers keep it.
 */
export const envTracing: DisableTracing | undefined = process.env.CREWTS_TRACING !== undefined ? await enableTracingFromEnv() : undefined;
