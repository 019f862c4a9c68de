import type { z } from "zod";
import type { Agent } from "../agent/Agent.js";
import type { ExecutorResult } from "../agent/AgentExecutor.js";
import { ConverterError, convertToSchema } from "../agent/OutputConverter.js";
import type { CallSource } from "../llm/types.js";
import { addToUsageMetrics, emptyUsageMetrics } from "../llm/UsageMetrics.js";
import { currentRun } from "../runtime/runContext.js";
import type { BaseTool } from "../tools/BaseTool.js";
import { GuardrailError } from "./errors.js";
import { checkGuardrail, type NormalizedGuardrailResult, type ResolvedGuardrail } from "./guardrails.js";
import { askHuman } from "./humanInput.js";
import type { Task } from "./Task.js";
import { taskPrompts } from "./taskPrompts.js";
import { TaskOutput } from "./TaskOutput.js";
import { globalHooks } from "../hooks/registry.js";
import { runStepHooks } from "../hooks/runHooks.js";

/** Rounds of human feedback before the answer is accepted anyway. */
export const MAX_HUMAN_FEEDBACK_ROUNDS = 3;

/** What one execution of a task works with. */
export interface TaskRun {
  agent: Agent;
  context: string;
  tools: BaseTool[] | undefined;
  source: CallSource;
  /** Guardrail retries of this execution, in all and per guardrail (the task shows them once it ends). */
  retries: GuardrailRetries;
}

/** Guardrail retries of one execution: in all, and per guardrail in the order they run. */
export interface GuardrailRetries {
  total: number;
  perGuardrail: number[];
}

/** Runs the agent, converts its answer, and applies the guardrails (with retries); returns the accepted output. */
export async function runTaskPipeline<S extends z.ZodType>(task: Task<S>, run: TaskRun): Promise<TaskOutput<z.infer<S>>> {
  const stepName = task.name ?? task.description;
  if (globalHooks.beforeStep.length > 0) {
    const context = await runStepHooks("beforeStep", { kind: "task", stepName, payload: run.context, agentRole: run.agent.role });
    if (typeof context === "string") run = { ...run, context };
  }
  // Without human review the agent's answer is the answer (no frame of runAgent's waiting on it).
  const answer = task.humanInput ? await runAgent(task, run, run.context) : await run.agent.executeTaskDetailed(task, run.context, run.tools, run.source);
  let output = await buildOutput(task, run, answer);
  for (const [index, guardrail] of task.resolvedGuardrails.entries()) {
    output = await enforceGuardrail(task, run, output, guardrail, index);
  }
  // As CrewAI's POST_STEP: before the output is stored, so a change reaches later tasks, callbacks and files.
  if (globalHooks.afterStep.length > 0) {
    const after = await runStepHooks("afterStep", { kind: "task", stepName, payload: output, agentRole: run.agent.role });
    if (after instanceof TaskOutput) output = after as TaskOutput<z.infer<S>>;
  }
  return output;
}

/**
 * Whether the task's pipeline is just its agent's answer: no human review, guardrails, output schema or
 * step hooks. Such a task takes its output from `plainOutput`, without a frame of runTaskPipeline's
 * waiting on the agent (many runs in flight each hold their frames).
 */
export function hasPlainPipeline(task: Task): boolean {
  return !task.humanInput && task.resolvedGuardrails.length === 0 && !task.outputSchema && globalHooks.beforeStep.length === 0 && globalHooks.afterStep.length === 0;
}

/** The output of a task with a plain pipeline (see hasPlainPipeline). */
export function plainOutput<T>(task: Task, agent: Agent, result: Pick<ExecutorResult, "output" | "messages">): TaskOutput<T> {
  return new TaskOutput<T>(outputFields(task, agent, result));
}

/** What every output of a task's answer holds (a parsed value is added for an outputSchema). */
function outputFields(task: Task, agent: Agent, result: Pick<ExecutorResult, "output" | "messages">) {
  return {
    description: task.description,
    expectedOutput: task.expectedOutput,
    raw: result.output,
    agent: agent.role,
    messages: result.messages,
    // As CrewAI: a task without a name is named by its description.
    name: task.name ?? task.description,
  };
}

/** Turns an answer into a TaskOutput, parsing it into the task's schema when it has one. */
async function buildOutput<S extends z.ZodType>(task: Task<S>, run: TaskRun, result: Pick<ExecutorResult, "output" | "messages">): Promise<TaskOutput<z.infer<S>>> {
  if (!task.outputSchema) return plainOutput<z.infer<S>>(task, run.agent, result);
  const fields = outputFields(task, run.agent, result);
  // Object.assign, not `{ ...fields, parsed }`: that spread makes a slow dictionary-mode object on Node 20.
  return new TaskOutput<z.infer<S>>(Object.assign(fields, { parsed: await parseOutput(task, run, result.output) }));
}

async function parseOutput<S extends z.ZodType>(task: Task<S>, run: TaskRun, raw: string): Promise<z.infer<S>> {
  const schema = task.outputSchema as S;
  try {
    const conversion = await convertToSchema(raw, schema, { llm: run.agent.llm, maxAttempts: 3, source: run.source });
    addToUsageMetrics(run.agent.usageMetrics, conversion.usage);
    return conversion.parsed;
  } catch (error) {
    if (error instanceof ConverterError) {
      throw new ConverterError(`Task '${task.displayName}' failed: its output could not be parsed into its outputSchema. ${error.message}`, error.rawOutput);
    }
    throw error;
  }
}

/** One agent execution, followed by rounds of human feedback when the task asks for them. */
async function runAgent(task: Task, run: TaskRun, context: string): Promise<ExecutorResult> {
  // A crew resumed from a pause on this review starts from the output that was under review.
  const resumed = task.humanInput ? currentRun()?.humanAnswer?.takeReview(task.displayName) : undefined;
  let result = resumed ? reviewedResult(resumed.output) : await run.agent.executeTaskDetailed(task, context, run.tools, run.source);
  if (!task.humanInput) return result;
  let answer = resumed?.answer;
  for (let round = 0; round < MAX_HUMAN_FEEDBACK_ROUNDS; round++) {
    const asked = answer ?? (await askHuman(taskPrompts.humanFeedbackRequest(result.output), { agentRole: run.agent.role, taskName: task.displayName, output: result.output }));
    answer = undefined;
    const feedback = asked.trim();
    if (!feedback) break;
    result = await run.agent.executeTaskDetailed(task, joinContext(context, taskPrompts.humanFeedback(feedback, result.output)), run.tools, run.source);
  }
  return result;
}

function reviewedResult(output: string): ExecutorResult {
  return { output, usage: emptyUsageMetrics(), messages: [], iterations: 0, fromTool: false };
}

async function enforceGuardrail<S extends z.ZodType>(
  task: Task<S>,
  run: TaskRun,
  first: TaskOutput<z.infer<S>>,
  guardrail: ResolvedGuardrail,
  index: number,
): Promise<TaskOutput<z.infer<S>>> {
  let output = first;
  for (let retries = 0; ; retries++) {
    const result = await checkGuardrail(guardrail, output, { agent: run.agent, taskId: task.id, retryCount: retries, source: run.source });
    if (result.success) return applyResult(task, run, output, result);
    const error = result.error ?? "";
    if (retries >= task.guardrailMaxRetries) {
      // CrewAI's sentence first (users match on it; several guardrails are numbered from 0, as there),
      // then which task and guardrail, and what to do.
      const which = task.resolvedGuardrails.length > 1 ? `guardrail ${index}` : "guardrail";
      throw new GuardrailError(
        `Task failed ${which} validation after ${retries} retries. Last error: ${error}. ` +
          `Task: '${task.displayName}'; guardrail: ${shorten(guardrail.label)}. ` +
          "Make the task description or expected output state the rule, or raise guardrailMaxRetries.",
        error,
        retries,
      );
    }
    run.retries.total++;
    run.retries.perGuardrail[index] = retries + 1;
    // The original context stays: the agent still needs it, plus what went wrong last time.
    const answer = await runAgent(task, run, joinContext(run.context, taskPrompts.validationError(error, output.raw)));
    output = await buildOutput(task, run, answer);
  }
}

/** Applies what a passing guardrail returned: a string replaces raw (re-parsed), a schema-valid value replaces parsed, a TaskOutput replaces all. */
async function applyResult<S extends z.ZodType>(task: Task<S>, run: TaskRun, output: TaskOutput<z.infer<S>>, result: NormalizedGuardrailResult): Promise<TaskOutput<z.infer<S>>> {
  const value = result.result;
  if (value instanceof TaskOutput) return value as TaskOutput<z.infer<S>>;
  if (typeof value === "string") {
    if (value === output.raw) return output;
    return rebuild(output, value, task.outputSchema ? await parseOutput(task, run, value) : undefined);
  }
  if (task.outputSchema && value !== undefined && value !== null && value !== output.parsed && typeof value === "object") {
    const checked = task.outputSchema.safeParse(value);
    if (checked.success) return rebuild(output, JSON.stringify(checked.data), checked.data);
  }
  return output;
}

function rebuild<T>(output: TaskOutput<T>, raw: string, parsed: T | undefined): TaskOutput<T> {
  return new TaskOutput<T>({
    description: output.description,
    raw,
    agent: output.agent,
    messages: output.messages,
    ...(output.name !== undefined ? { name: output.name } : {}),
    ...(output.expectedOutput !== undefined ? { expectedOutput: output.expectedOutput } : {}),
    ...(parsed !== undefined ? { parsed } : {}),
  });
}

function joinContext(context: string, extra: string): string {
  return context.trim() ? `${context}\n\n${extra}` : extra;
}

function shorten(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 80 ? `${line.slice(0, 80)}...` : line;
}
