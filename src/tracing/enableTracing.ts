import type * as OtelApi from "@opentelemetry/api";
import type { TracerProvider } from "@opentelemetry/api";
import { eventBus, setTraceHooks } from "../events/index.js";
import { RunTracer } from "./RunTracer.js";
import { llmKey, subscribeSpans } from "./spanEvents.js";
import { runInScope } from "./traceContext.js";

/** Options of `enableTracing`. */
export interface TracingOptions {
  /** Where spans go; default the globally registered provider (`trace.getTracerProvider()`). */
  tracerProvider?: TracerProvider;
  /** Put prompts, completions, inputs and outputs on spans (secrets redacted). Default false: they may hold personal data. */
  captureContent?: boolean;
}

/** Switches tracing off again: stops making spans and, for a provider crewts set up itself, flushes and shuts it down. */
export type DisableTracing = () => Promise<void>;

/** Raised when tracing is asked for but `@opentelemetry/api` is not installed. */
export class TracingUnavailableError extends Error {
  constructor(pkg: string, cause: unknown) {
    super(`Tracing needs the optional package "${pkg}", which could not be loaded. Install it: npm install ${pkg}`, { cause });
    this.name = "TracingUnavailableError";
  }
}

let active: { disable: DisableTracing } | undefined;
// Loaded once: a dynamic import of a loaded module still goes through module resolution (and any
// loader hooks, a worker round trip under tsx) each time tracing is switched on.
let apiModule: Promise<typeof OtelApi> | undefined;

/** Loads an optional OpenTelemetry package, naming it and the fix when it is missing. */
export async function loadOptional<T>(pkg: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    throw new TracingUnavailableError(pkg, error);
  }
}

/**
 * Starts tracing crews, tasks, agents, LLM and tool calls, flows, memory and knowledge queries as
 * OpenTelemetry spans. Loads `@opentelemetry/api` (an optional peer dependency) now; until this is
 * called nothing is traced or sent anywhere. Calling it again replaces the previous set-up.
 * Returns the function that switches tracing off.
 */
export async function enableTracing(options: TracingOptions = {}): Promise<DisableTracing> {
  return startTracing(options);
}

/** enableTracing, with a provider crewts made itself (`owned`), shut down when tracing is switched off. */
export async function startTracing(options: TracingOptions, owned?: { shutdown(): Promise<void> }): Promise<DisableTracing> {
  apiModule ??= loadOptional("@opentelemetry/api", () => import("@opentelemetry/api")).catch((error: unknown) => {
    apiModule = undefined;
    throw error;
  });
  const api = await apiModule;
  if (active) await active.disable();
  const provider = options.tracerProvider ?? api.trace.getTracerProvider();
  const tracer = new RunTracer(api, provider.getTracer("crewts"), options.captureContent === true);
  const unsubscribe = subscribeSpans(eventBus, tracer);
  setTraceHooks({
    within: (event, fn) => {
      const scope = tracer.scopeOf(event);
      return scope?.context === undefined ? fn() : runInScope(scope, () => api.context.with(scope.context!, fn));
    },
    llmHeaders: (callId) => tracer.headersOf(llmKey(callId)),
  });
  const state = {
    disable: async () => {
      if (active !== state) return;
      active = undefined;
      unsubscribe();
      setTraceHooks(undefined);
      tracer.endAll();
      await owned?.shutdown();
    },
  };
  active = state;
  return state.disable;
}
