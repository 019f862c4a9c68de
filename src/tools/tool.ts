import type { z } from "zod";
import { BaseTool, type ToolRunContext } from "./BaseTool.js";
import { ToolError } from "./ToolError.js";

/** What `tool()` needs: CrewAI's @tool, with a zod schema for the arguments. */
export interface ToolDefinition<S extends z.ZodType> {
  name: string;
  description: string;
  schema: S;
  /** Does the work; may be async. Throw to report a failure to the model. */
  execute: (args: z.infer<S>, context?: ToolRunContext) => unknown;
  /** Ask the human input provider before running (always, or when the function returns true for the input). */
  needsApproval?: boolean | ((input: z.infer<S>) => boolean | Promise<boolean>);
  /** Decides whether a result may be cached (default: always). */
  cacheFunction?: (args: z.infer<S>, result: unknown) => boolean;
  /** The tool result becomes the agent's final answer. */
  resultAsAnswer?: boolean;
  /** How many times the tool may be used; unset means unlimited. */
  maxUsageCount?: number;
}

class FunctionTool<S extends z.ZodType> extends BaseTool<S> {
  readonly name: string;
  readonly description: string;
  readonly schema: S;
  private readonly execute: (args: z.infer<S>, context?: ToolRunContext) => unknown;

  constructor(def: ToolDefinition<S>) {
    super();
    this.name = def.name;
    this.description = def.description;
    this.schema = def.schema;
    this.execute = def.execute;
    this.cacheFunction = def.cacheFunction;
    // Kept as given (not defaulted with ??) so validate() can reject a non-boolean.
    if (def.resultAsAnswer !== undefined) this.resultAsAnswer = def.resultAsAnswer;
    this.maxUsageCount = def.maxUsageCount;
    if (def.needsApproval !== undefined) this.needsApproval = def.needsApproval;
  }

  // The context goes to execute only when the run can be cancelled, so plain calls see just their arguments.
  run(args: z.infer<S>, context?: ToolRunContext): unknown {
    return context === undefined ? this.execute(args) : this.execute(args, context);
  }
}

/** Builds a tool from a definition object, checked at once: a broken definition throws a ToolError saying how to fix it. */
export function tool<S extends z.ZodType>(def: ToolDefinition<S>): BaseTool<S> {
  // Checked by hand because callers may be plain JavaScript or pass objects typed `any`.
  const raw = def as unknown;
  if (typeof raw !== "object" || raw === null) {
    throw new ToolError("tool() needs a definition object: tool({ name, description, schema, execute }).");
  }
  const label = typeof def.name === "string" && def.name.trim() !== "" ? `Tool "${def.name}"` : "tool()";
  if (typeof def.execute !== "function") {
    throw new ToolError(
      `${label}: \`execute\` must be the function doing the work, e.g. execute: async ({ query }) => search(query).`,
    );
  }
  if (def.needsApproval !== undefined && typeof def.needsApproval !== "boolean" && typeof def.needsApproval !== "function") {
    throw new ToolError(`${label}: \`needsApproval\` must be true, false or a function (input) => boolean.`);
  }
  const built = new FunctionTool(def);
  // The rest (name, description, schema, the options) is what every BaseTool checks on first use.
  built.validate();
  return built;
}
