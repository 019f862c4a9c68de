import { z } from "zod";
import type { Agent } from "../agent/Agent.js";
import { functionOption } from "../agent/AgentOptions.js";
import type { BaseTool } from "../tools/BaseTool.js";
import { TaskValidationError } from "./errors.js";
import type { Guardrail } from "./guardrails.js";
import { outputPathProblem } from "./outputFile.js";
import type { Task } from "./Task.js";
import { unknownOptionMessage } from "../tools/unknownOption.js";
import type { TaskOutput } from "./TaskOutput.js";

// A method signature keeps Task<S> assignable to Task (callback parameters are then bivariant).
type TaskCallback<T> = { call(output: TaskOutput<T>): void | Promise<void> }["call"];

/** Options of `new Task(...)`. */
export interface TaskOptions<S extends z.ZodType = z.ZodType> {
  /** What to do; `{placeholders}` are filled from the kickoff inputs. */
  description: string;
  /** What a good answer looks like; `{placeholders}` are filled from the kickoff inputs. */
  expectedOutput: string;
  /** The agent that does the task (in a hierarchical crew, the manager picks one when unset). */
  agent?: Agent;
  /** A short name for events, logs and verbose output (default: none; the description is shown instead). */
  name?: string;
  /** Tasks whose outputs are this task's context. Undefined: in a crew, all earlier outputs; []: none. */
  context?: Task[];
  /** Run without blocking the next task (in a crew). */
  asyncExecution?: boolean;
  /** A zod schema the answer is parsed into (`output.parsed`). */
  outputSchema?: S;
  /** Where to write the output; `{placeholders}` allowed. */
  outputFile?: string;
  /** Create missing parent directories of outputFile (default true). */
  createDirectory?: boolean;
  /** Tools for this task, used instead of the agent's. */
  tools?: BaseTool[];
  /** Ask a human for feedback on the answer before accepting it. */
  humanInput?: boolean;
  /** Ask for the answer in Markdown. */
  markdown?: boolean;
  /** Called with the final output. */
  callback?: TaskCallback<z.infer<S>>;
  /** A check of the output; a string is a rule judged by an LLM. Ignored when `guardrails` is given. */
  guardrail?: Guardrail<z.infer<S>>;
  /** Checks run in order, each with its own retries. */
  guardrails?: Guardrail<z.infer<S>>[];
  /** Retries per guardrail before the task fails (default 3). */
  guardrailMaxRetries?: number;
}

const fn = functionOption;
const guardrail = z.union([fn, z.string().trim().min(1, "a string guardrail must describe the rule")], {
  error: "must be a function (output) => [ok, result] or a string describing a rule",
});

/** The keys every Task accepts (ConditionalTask adds `condition`). */
export const taskOptionsShape = {
  description: z.string({ error: "description is required: say what the task is" }).trim().min(1, "description is required: say what the task is"),
  expectedOutput: z.string({ error: "expectedOutput is required: say what a good answer looks like" }),
  agent: z
    .custom<Agent>(
      (v) => typeof v === "object" && v !== null && typeof (v as Agent).executeTaskDetailed === "function",
      "must be an Agent (new Agent({ role, goal, backstory }))",
    )
    .optional(),
  name: z.string().optional(),
  context: z
    .array(z.custom<Task>((v) => typeof v === "object" && v !== null && typeof (v as Task).executeSync === "function", "each context entry must be a Task"))
    .optional(),
  asyncExecution: z.boolean().optional(),
  outputSchema: z
    .custom<z.ZodType>((v) => typeof v === "object" && v !== null && typeof (v as z.ZodType).safeParse === "function", "must be a zod schema, e.g. z.object({...})")
    .optional(),
  outputFile: z
    .string()
    .superRefine((path, ctx) => {
      const problem = outputPathProblem(path);
      if (problem) ctx.addIssue({ code: "custom", message: `${problem}; use a plain relative or absolute file path` });
    })
    .optional(),
  createDirectory: z.boolean().optional(),
  tools: z
    .array(z.custom<BaseTool>((v) => typeof v === "object" && v !== null && typeof (v as BaseTool).run === "function", "each tool must be made with tool({...}) or extend BaseTool"))
    .optional(),
  humanInput: z.boolean().optional(),
  markdown: z.boolean().optional(),
  callback: fn.optional(),
  guardrail: guardrail.optional(),
  guardrails: z.array(guardrail).optional(),
  guardrailMaxRetries: z.number().int().min(0, "guardrailMaxRetries must be 0 or more").optional(),
};

/** Validates options with `schema`; throws a TaskValidationError naming each bad field and its fix. */
export function validateTaskOptions(schema: z.ZodObject, options: unknown, kind: string): void {
  const parsed = schema.safeParse(options);
  if (parsed.success) return;
  const known = Object.keys(schema.shape);
  const issues = parsed.error.issues.map((issue) => {
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((k) => unknownOptionMessage(k, known, kind)).join("; ");
    }
    return issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message;
  });
  const label = typeof (options as { description?: unknown })?.description === "string" ? ` for '${(options as { description: string }).description.slice(0, 60)}'` : "";
  throw new TaskValidationError(`Invalid ${kind} options${label}: ${issues.join("; ")}.`);
}
