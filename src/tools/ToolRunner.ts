import { HumanInputPending } from "../runtime/humanInputPending.js";
import { performance } from "node:perf_hooks";
import { z } from "zod";
import { eventBus, withinEvent } from "../events/index.js";
import type { CrewtsEvent, EventPayloads, EventSource, EventType } from "../events/index.js";
import { redactSecrets } from "../llm/redact.js";
import { untilAborted } from "../llm/retry.js";
import type { ToolSpec } from "../llm/types.js";
import { BaseTool } from "./BaseTool.js";
import {
  blockedToolObservation,
  deniedToolObservation,
  repeatedCallObservation,
  toolFailedObservation,
  unknownToolObservation,
  usageLimitObservation,
} from "./observations.js";
import { parseArgumentsJson } from "./parseArgumentsJson.js";
import { sanitizeToolName } from "./sanitize.js";
import { similarityRatio } from "./similarityRatio.js";
import { fallbackText, stableStringify } from "./stableStringify.js";
import { isTrustedConstruction } from "./trustedConstruction.js";
import type { ToolCache } from "./ToolCache.js";
import { ToolError } from "./ToolError.js";
import { ToolCallGates } from "./toolCallGates.js";

/** A tool call to execute: the name the model used and its arguments (an object, or text to parse). */
export interface ToolRunRequest {
  name: string;
  arguments: Record<string, unknown> | string;
}

/** What a tool call produced. */
export interface ToolRunResult {
  /** The observation for the model: the tool's output, or a message saying what went wrong and what to do. */
  output: string;
  /** True only when `output` is a real tool result (run now or read from the cache). */
  ok: boolean;
  /** The tool is marked `resultAsAnswer` and succeeded: `output` is the agent's final answer. */
  resultAsAnswer: boolean;
  fromCache: boolean;
  /** Sanitized name of the tool that was resolved, when one was. */
  toolName?: string;
}

/** Options of a ToolRunner. */
export interface ToolRunnerOptions {
  /** Where outputs are cached; no cache when left out. */
  cache?: ToolCache;
  /** Ids copied into every tool event. */
  source?: EventSource;
  /** Attempts per call when the tool throws, retries included (default 3, as CrewAI). */
  maxAttempts?: number;
}

// CrewAI's ToolUsage accepts a misspelled tool name when SequenceMatcher's ratio is above this.
const FUZZY_MATCH_THRESHOLD = 0.85;

const optionsSchema = z
  .object({
    cache: z
      .custom<ToolCache>(
        (v) =>
          typeof v === "object" &&
          v !== null &&
          typeof (v as Partial<ToolCache>).get === "function" &&
          typeof (v as Partial<ToolCache>).set === "function",
        { message: "must implement ToolCache (get, set, clear), e.g. new InMemoryToolCache()" },
      )
      .optional(),
    source: z.record(z.string(), z.string().optional()).optional(),
    maxAttempts: z.number().int().min(1).optional(),
  })
  .strict();

// What every runner without tools holds: nothing is ever added to these.
const NO_TOOLS: Map<string, BaseTool> = new Map();
const NO_TOOL_LIST: readonly BaseTool[] = Object.freeze([]);
const NO_TOOL_SPECS: readonly ToolSpec[] = Object.freeze([]);

/**
 * Executes the tool calls of one agent execution, as CrewAI's ToolUsage with its ToolsHandler:
 * resolves (possibly misspelled) tool names, validates arguments, refuses an immediate repeat of
 * the same call, enforces usage limits, uses the cache, retries failures and emits tool events.
 * Model mistakes and tool errors become observations; `run` never throws for them.
 */
export class ToolRunner {
  private readonly list: readonly BaseTool[];
  private readonly bySanitizedName: Map<string, BaseTool>;
  private readonly specs: readonly ToolSpec[];
  private readonly cache: ToolCache | undefined;
  private readonly source: EventSource;
  private readonly maxAttempts: number;
  /** Tool and arguments of the previous successful call, for repeated-call detection. */
  private lastCallKey: string | undefined;

  constructor(tools: BaseTool[], options: ToolRunnerOptions = {}) {
    const parsed = isTrustedConstruction() ? undefined : optionsSchema.safeParse(options);
    if (parsed && !parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.map(String).join(".") || "options"}: ${i.message}`);
      throw new ToolError(`Invalid ToolRunner options: ${problems.join("; ")}.`);
    }
    this.cache = options.cache;
    // The run's ids as given (never changed here): thousands of runs in flight each hold one runner.
    this.source = options.source ?? {};
    this.maxAttempts = options.maxAttempts ?? 3;

    if (!Array.isArray(tools)) throw new ToolError("ToolRunner needs an array of tools (it may be empty).");
    // An agent without tools (the usual case in a crew of writers) gets a runner with nothing to look up.
    if (tools.length === 0) {
      this.bySanitizedName = NO_TOOLS;
      this.list = NO_TOOL_LIST;
      this.specs = NO_TOOL_SPECS;
      return;
    }
    this.bySanitizedName = new Map();
    const list: BaseTool[] = [];
    tools.forEach((candidate: unknown, index) => {
      if (!isTool(candidate)) {
        throw new ToolError(`tools[${index}] is not a tool: create tools with tool({...}) or a class extending BaseTool.`);
      }
      candidate.validate();
      const existing = this.bySanitizedName.get(candidate.sanitizedName);
      if (existing === candidate) return; // the same tool given twice (agent and task tools overlap)
      if (existing) {
        throw new ToolError(
          `Two different tools are both called "${candidate.sanitizedName}" once sanitized ` +
            `("${existing.name}" and "${candidate.name}"): give each tool a unique name.`,
        );
      }
      this.bySanitizedName.set(candidate.sanitizedName, candidate);
      list.push(candidate);
    });
    this.list = list;
    this.specs = list.map((t) => t.toToolSpec());
  }

  /** The tools, without duplicates, in the order given. */
  get tools(): readonly BaseTool[] {
    return this.list;
  }

  /** Every tool as offered for native tool calling. */
  toolSpecs(): ToolSpec[] {
    return this.specs.map((spec) => ({ ...spec, parameters: structuredClone(spec.parameters) }));
  }

  /** Every tool's `describe()` block, one after another, for text prompts. */
  describeTools(): string {
    return this.list.map((t) => t.describe()).join("\n");
  }

  /** The tools' names as models call them, comma-separated, for prompts. */
  toolNames(): string {
    return this.list.map((t) => t.sanitizedName).join(", ");
  }

  /** Executes one tool call and returns the observation for the model; `signal` reaches the tool and stops the call at once. */
  async run(request: ToolRunRequest, signal?: AbortSignal): Promise<ToolRunResult> {
    const requested = typeof request.name === "string" ? request.name.trim() : "";
    const tool = this.resolve(requested);
    if (!tool) {
      this.lastCallKey = undefined;
      const output = unknownToolObservation(requested, this.toolNames());
      this.emit("tool_usage_error", () => ({ ...this.source, toolName: requested, toolArgs: request.arguments, error: output }));
      return { output, ok: false, resultAsAnswer: false, fromCache: false };
    }
    const toolName = tool.sanitizedName;
    const failure = (output: string): ToolRunResult => {
      this.lastCallKey = undefined;
      this.emit("tool_usage_error", () => ({ ...this.source, toolName, toolArgs: request.arguments, error: output }));
      return { output, ok: false, resultAsAnswer: false, fromCache: false, toolName };
    };

    // The parsed object keys the cache and the repeat check; on a parse failure, parseArgs gets the
    // original text and explains the problem to the model.
    const json =
      typeof request.arguments === "string"
        ? parseArgumentsJson(request.arguments)
        : { ok: true as const, value: request.arguments };
    // Hooks see the input before validation, so what they change in place is validated too.
    const gates = json.ok ? ToolCallGates.for(tool, json.value, this.source) : undefined;
    if (gates && !(await gates.before())) return failure(blockedToolObservation(toolName));
    const parsed = tool.parseArgs(json.ok ? json.value : request.arguments);
    if (!parsed.ok) return failure(parsed.error);
    if (!json.ok) return failure(json.error); // unreachable: parseArgs rejects the same text
    const args = json.value;

    const callKey = `${toolName}\u0000${stableStringify(args)}`;
    if (callKey === this.lastCallKey) {
      return { output: repeatedCallObservation(), ok: false, resultAsAnswer: false, fromCache: false, toolName };
    }
    if (tool.maxUsageCount !== undefined && tool.currentUsageCount >= tool.maxUsageCount) {
      return failure(usageLimitObservation(toolName, tool.maxUsageCount));
    }

    if (gates) {
      const refusal = await gates.refusal(tool, parsed.value);
      if (refusal !== undefined) return failure(deniedToolObservation(toolName, refusal));
    }

    const started = this.emit("tool_usage_started", () => ({ ...this.source, toolName, toolArgs: args }));
    const startedAt = performance.now();
    const succeed = async (raw: string, fromCache: boolean): Promise<ToolRunResult> => {
      const output = gates ? await gates.after(raw) : raw;
      this.lastCallKey = callKey;
      this.emit("tool_usage_finished", () => ({
        ...this.source,
        toolName,
        toolArgs: args,
        output,
        fromCache,
        durationMs: performance.now() - startedAt,
      }));
      return { output, ok: true, resultAsAnswer: tool.resultAsAnswer, fromCache, toolName };
    };

    const cached = this.readCache(toolName, args);
    if (cached !== undefined) return succeed(cached, true);

    // Counted before running so that concurrent calls cannot exceed the limit; retries of one call are one use.
    tool.currentUsageCount += 1;
    let lastError: unknown;
    for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
      try {
        // Under tracing, runs the tool starts (a crew, an agent) nest under its span.
        const result: unknown = await withinEvent(started, () => (signal ? untilAborted(tool.run(parsed.value, { signal }), signal, TOOL_ABORTED) : tool.run(parsed.value)));
        const output = toObservationText(result);
        if (this.cache && this.shouldCache(tool, parsed.value, result)) this.writeCache(toolName, args, output);
        return succeed(output, false);
      } catch (error) {
        // A pause for a human (a crew or approval inside the tool) stops the run; it is no tool failure.
        if (signal?.aborted || error instanceof HumanInputPending) throw error;
        lastError = error;
        this.emit("tool_usage_error", () => ({ ...this.source, toolName, toolArgs: args, error: errorMessage(error) }));
      }
    }
    // The per-attempt error events are already out; only the observation is left to build.
    this.lastCallKey = undefined;
    const output = toolFailedObservation(toolName, errorMessage(lastError), JSON.stringify(tool.argumentsJsonSchema()));
    return { output, ok: false, resultAsAnswer: false, fromCache: false, toolName };
  }

  private resolve(requested: string): BaseTool | undefined {
    if (requested === "") return undefined;
    const sanitized = sanitizeToolName(requested);
    const exact = this.bySanitizedName.get(sanitized);
    if (exact) return exact;
    const lower = requested.toLowerCase();
    const byOriginalName = this.list.find((t) => t.name.trim().toLowerCase() === lower);
    if (byOriginalName) return byOriginalName;
    let best: BaseTool | undefined;
    let bestRatio = FUZZY_MATCH_THRESHOLD;
    for (const candidate of this.list) {
      const ratio = similarityRatio(candidate.sanitizedName, sanitized);
      if (ratio > bestRatio) {
        best = candidate;
        bestRatio = ratio;
      }
    }
    return best;
  }

  // A broken cache backend costs the cache, never the tool call: warn and carry on without it.
  private readCache(toolName: string, args: Record<string, unknown>): string | undefined {
    try {
      return this.cache?.get(toolName, args);
    } catch (error) {
      console.warn(`[crewts] tool cache read failed for "${toolName}", running the tool: ${errorMessage(error)}`);
      return undefined;
    }
  }

  private writeCache(toolName: string, args: Record<string, unknown>, output: string): void {
    try {
      this.cache?.set(toolName, args, output);
    } catch (error) {
      console.warn(`[crewts] tool cache write failed for "${toolName}": ${errorMessage(error)}`);
    }
  }

  private shouldCache(tool: BaseTool, args: unknown, result: unknown): boolean {
    if (!tool.cacheFunction) return true;
    try {
      return tool.cacheFunction(args, result) !== false;
    } catch (error) {
      console.warn(`[crewts] cacheFunction of tool "${tool.sanitizedName}" threw, result not cached: ${errorMessage(error)}`);
      return false;
    }
  }

  private emit<K extends EventType>(type: K, build: () => EventPayloads[K]): CrewtsEvent<K> | undefined {
    return eventBus.hasListeners(type) ? eventBus.emit(type, build()) : undefined;
  }
}

// A tool that ignores its signal must not hold the run: the call ends when the signal aborts.
const TOOL_ABORTED = "The tool call was aborted.";

function isTool(value: unknown): value is BaseTool {
  return value instanceof BaseTool;
}

/** Turns a tool's return value into observation text: strings as is, undefined as "", anything else as JSON. */
function toObservationText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  try {
    return JSON.stringify(value) ?? fallbackText(value);
  } catch {
    return fallbackText(value);
  }
}

// Tool errors reach the model's provider, events and logs: an API key a tool put in its error
// (a failed URL with ?api_key=..., an echoed header) is removed first.
function errorMessage(error: unknown): string {
  const text = error instanceof Error ? error.message || error.name : typeof error === "string" ? error : stableStringify(error);
  return redactSecrets(text);
}
