import { z } from "zod";
import type { ToolSpec } from "../llm/types.js";
import { invalidArgumentsObservation } from "./observations.js";
import { isPlainRecord, kindOf, parseArgumentsJson } from "./parseArgumentsJson.js";
import { sanitizeToolName } from "./sanitize.js";
import { ToolError } from "./ToolError.js";

/** Result of `BaseTool.parseArgs`: the validated arguments, or a message telling the model what to fix. */
export type ParseArgsResult<T> = { ok: true; value: T } | { ok: false; error: string };

interface CheckedDefinition {
  sanitizedName: string;
  parameters: Record<string, unknown>;
}

/**
 * A tool an agent can use, as CrewAI's BaseTool: a name, a description telling the model when to
 * use it, a zod schema of its arguments and `run`. Subclass it, or build one with `tool({...})`.
 */
export abstract class BaseTool<S extends z.ZodType = z.ZodType> {
  /** Unique name; models see its sanitized form (`sanitizedName`). */
  abstract readonly name: string;
  /** Tells the model what the tool does and when to use it. */
  abstract readonly description: string;
  /** Schema of the arguments: an object schema such as `z.object({ query: z.string() })`. */
  abstract readonly schema: S;
  // Method syntax keeps the argument type bivariant, so a BaseTool<typeof schema> fits in a BaseTool[].
  /** Decides whether a result may be cached (default: always). */
  cacheFunction?(this: void, args: z.infer<S>, result: unknown): boolean;
  /** When true, the tool's result becomes the agent's final answer. */
  resultAsAnswer = false;
  /** How many times the tool may be used; unset means unlimited. */
  maxUsageCount?: number;
  /** How many times the tool has been used so far. */
  currentUsageCount = 0;
  /** Ask the human input provider before each run (or when the function says so for the input); a denial becomes the observation. */
  needsApproval?: boolean | ApprovalRule<z.infer<S>>;

  // Subclasses declare `name = "..."` as class fields, which are set after this constructor runs,
  // so the definition is checked on first use and the outcome remembered.
  private checked: CheckedDefinition | undefined;

  /** Does the tool's work with validated arguments; may return a promise. Throw to report a failure. `context.signal` aborts with the run. */
  abstract run(args: z.infer<S>, context?: ToolRunContext): unknown;

  /** Throws a ToolError naming the problem and the fix when the definition is unusable. Runs once; later calls are free. */
  validate(): void {
    this.definition();
  }

  /** The name models see and call: lowercase ASCII with underscores (see `sanitizeToolName`). */
  get sanitizedName(): string {
    return this.definition().sanitizedName;
  }

  /** JSON schema of the arguments (an object schema without `$schema`), a fresh copy each call. */
  argumentsJsonSchema(): Record<string, unknown> {
    return structuredClone(this.definition().parameters);
  }

  /** The tool as offered to a model for native tool calling. */
  toToolSpec(): ToolSpec {
    return { name: this.sanitizedName, description: this.description, parameters: this.argumentsJsonSchema() };
  }

  /** CrewAI's text block describing the tool in a text (ReAct) prompt. */
  describe(): string {
    const { sanitizedName, parameters } = this.definition();
    return (
      `Tool Name: ${sanitizedName}\n` +
      `Tool Arguments: ${JSON.stringify(parameters, null, 2)}\n` +
      `Tool Description: ${this.description}`
    );
  }

  /**
   * Validates arguments from a model. A string is read as JSON, repaired when malformed. Never
   * throws: on failure `error` lists each problem (path, expected type) for the model to fix.
   */
  parseArgs(raw: Record<string, unknown> | string): ParseArgsResult<z.infer<S>> {
    const { sanitizedName, parameters } = this.definition();
    const fail = (problems: string[]): ParseArgsResult<z.infer<S>> => ({
      ok: false,
      error: invalidArgumentsObservation(sanitizedName, problems, JSON.stringify(parameters)),
    });
    let input: unknown = raw;
    if (typeof raw === "string") {
      const parsed = parseArgumentsJson(raw);
      if (!parsed.ok) return fail([parsed.error]);
      input = parsed.value;
    } else if (!isPlainRecord(raw)) {
      return fail([`the arguments must be a JSON object of named values, but got ${kindOf(raw)}`]);
    }
    let result: z.ZodSafeParseResult<z.infer<S>>;
    try {
      result = this.schema.safeParse(input);
    } catch (error) {
      // A refinement that throws (or is async, which safeParse cannot run) is the tool's fault,
      // but the model still gets an answer instead of a crash.
      return fail([`the arguments could not be checked: ${error instanceof Error ? error.message : String(error)}`]);
    }
    if (result.success) return { ok: true, value: result.data };
    return fail(result.error.issues.map((issue) => describeIssue(issue, input)));
  }

  /** Sets `currentUsageCount` back to zero. */
  resetUsage(): void {
    this.currentUsageCount = 0;
  }

  private definition(): CheckedDefinition {
    if (this.checked) return this.checked;
    const className = this.constructor.name || "(anonymous class)";
    const name: unknown = this.name;
    if (typeof name !== "string" || name.trim() === "") {
      throw new ToolError(
        `A tool of class ${className} has no name. Give it a short unique name, e.g. \`name = "web_search"\` ` +
          `in the class or \`tool({ name: "web_search", ... })\`.`,
      );
    }
    const sanitizedName = sanitizeToolName(name);
    if (sanitizedName === "") {
      throw new ToolError(
        `The tool name "${name}" has no ASCII letters or digits, so models cannot call it. Use a name such as "web_search".`,
      );
    }
    const description: unknown = this.description;
    if (typeof description !== "string" || description.trim() === "") {
      throw new ToolError(
        `Tool "${name}" has no description. Set \`description\` to a sentence telling the model what the tool does and when to use it.`,
      );
    }
    const max: unknown = this.maxUsageCount;
    if (max !== undefined && !(typeof max === "number" && Number.isInteger(max) && max > 0)) {
      throw new ToolError(
        `Tool "${name}": maxUsageCount must be a positive integer, got ${kindOf(max)}. Leave it unset for unlimited use.`,
      );
    }
    const resultAsAnswer: unknown = this.resultAsAnswer;
    if (typeof resultAsAnswer !== "boolean") {
      throw new ToolError(`Tool "${name}": resultAsAnswer must be true or false, got ${kindOf(resultAsAnswer)}.`);
    }
    const cacheFunction: unknown = this.cacheFunction;
    if (cacheFunction !== undefined && typeof cacheFunction !== "function") {
      throw new ToolError(
        `Tool "${name}": cacheFunction must be a function (args, result) => boolean, got ${typeof cacheFunction}.`,
      );
    }
    this.checked = { sanitizedName, parameters: toParametersSchema(name, this.schema) };
    return this.checked;
  }
}

function isZodSchema(value: unknown): value is z.ZodType {
  return (
    typeof value === "object" &&
    value !== null &&
    "_zod" in value &&
    typeof (value as { safeParse?: unknown }).safeParse === "function"
  );
}

function toParametersSchema(toolName: string, schema: unknown): Record<string, unknown> {
  const example = "e.g. z.object({ query: z.string() })";
  if (!isZodSchema(schema)) {
    throw new ToolError(`Tool "${toolName}": \`schema\` must be a zod (v4) schema of the arguments, ${example}.`);
  }
  let json: Record<string, unknown>;
  try {
    // draft-07 and inlined definitions are what every provider accepts (the Vercel AI SDK makes the
    // same choice); "input" because the model supplies input: fields with defaults are optional.
    json = z.toJSONSchema(schema, { target: "draft-07", io: "input", reused: "inline", unrepresentable: "any" });
  } catch (error) {
    throw new ToolError(
      `Tool "${toolName}": its schema cannot be turned into a JSON schema for the model ` +
        `(${error instanceof Error ? error.message : String(error)}). Use JSON-compatible zod types.`,
    );
  }
  if (json.type !== "object") {
    const got = typeof json.type === "string" ? `a schema of type "${json.type}"` : "a schema that is not a plain object";
    throw new ToolError(
      `Tool "${toolName}": \`schema\` must describe an object of named arguments, ${example}, but it is ${got}. ` +
        `Wrap a single value in an object, e.g. z.object({ value: ... }).`,
    );
  }
  delete json.$schema;
  // Providers expect `properties` even when a tool takes no arguments.
  json.properties ??= {};
  return json;
}

function describeIssue(issue: z.core.$ZodIssue, input: unknown): string {
  const where = formatPath(issue.path);
  if (issue.code === "invalid_type") {
    const received = valueAt(input, issue.path);
    return received === undefined
      ? `${where}: missing, expected ${issue.expected}`
      : `${where}: expected ${issue.expected}, got ${kindOf(received)}`;
  }
  return `${where}: ${issue.message}`;
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(arguments)";
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const key of path) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** What a running tool receives besides its arguments. */
export interface ToolRunContext {
  /** Aborted when the kickoff is cancelled: pass it on to fetch and child processes. */
  signal?: AbortSignal;
}

/** Decides from a tool call's input whether a human must approve it (a method type, so tools of any schema fit BaseTool). */
export type ApprovalRule<T> = { check(input: T): boolean | Promise<boolean> }["check"];
