import { z } from "zod";
import type { Agent } from "../agent/Agent.js";
import { BaseTool } from "../tools/BaseTool.js";
import { Task } from "../task/index.js";
import { crewPrompts } from "./crewPrompts.js";

const delegateWorkSchema = z.object({
  task: z.string().describe("The task to delegate"),
  context: z.string().describe("The context for the task"),
  coworker: z.string().describe("The role of the coworker to delegate to"),
});

const askQuestionSchema = z.object({
  question: z.string().describe("The question to ask"),
  context: z.string().describe("The context for the question"),
  coworker: z.string().describe("The role of the coworker to ask"),
});

/**
 * A role as delegation compares it: whitespace collapsed, quotes removed, case folded. Weaker models
 * often wrap the role in quotes or break it over lines, which must not make the coworker unknown.
 */
export function normalizeRole(role: string): string {
  return role.split(/\s+/).filter(Boolean).join(" ").replace(/["'`]/g, "").trim().toLowerCase();
}

/** The coworker whose role matches `name` (see normalizeRole); a list such as "[Writer, Editor]" names its first entry. */
export function findCoworker(coworkers: readonly Agent[], name: string): Agent | undefined {
  let wanted = name.trim();
  if (wanted.startsWith("[") && wanted.endsWith("]")) wanted = wanted.slice(1, -1).split(",")[0] ?? "";
  const normalized = normalizeRole(wanted);
  return coworkers.find((agent) => normalizeRole(agent.role) === normalized);
}

/** Runs `request` as a new task of the coworker named `coworker`; the answer, or what went wrong, is the observation. */
async function delegateTo(coworkers: readonly Agent[], coworker: string, request: string, context: string): Promise<string> {
  const agent = findCoworker(coworkers, coworker);
  if (!agent) return crewPrompts.unknownCoworker(coworker, coworkers.map((a) => a.role));
  try {
    const task = new Task({ description: request, expectedOutput: crewPrompts.delegatedExpectedOutput, agent });
    const output = await task.executeSync({ agent, ...(context.trim() ? { context } : {}) });
    return output.raw;
  } catch (error) {
    // The manager gets the failure as an observation and can pick another coworker or rephrase.
    return crewPrompts.delegationFailed(agent.role, error instanceof Error ? error.message : String(error));
  }
}

/** CrewAI's "Delegate work to coworker": a coworker does a task with the given context and returns the result. */
export class DelegateWorkTool extends BaseTool<typeof delegateWorkSchema> {
  readonly name = "Delegate work to coworker";
  readonly description: string;
  readonly schema = delegateWorkSchema;

  constructor(readonly coworkers: readonly Agent[]) {
    super();
    this.description = crewPrompts.delegateWorkDescription(coworkers.map((agent) => agent.role).join(", "));
  }

  run({ task, context, coworker }: z.infer<typeof delegateWorkSchema>): Promise<string> {
    return delegateTo(this.coworkers, coworker, task, context);
  }
}

/** CrewAI's "Ask question to coworker": a coworker answers a question with the given context. */
export class AskQuestionTool extends BaseTool<typeof askQuestionSchema> {
  readonly name = "Ask question to coworker";
  readonly description: string;
  readonly schema = askQuestionSchema;

  constructor(readonly coworkers: readonly Agent[]) {
    super();
    this.description = crewPrompts.askQuestionDescription(coworkers.map((agent) => agent.role).join(", "));
  }

  run({ question, context, coworker }: z.infer<typeof askQuestionSchema>): Promise<string> {
    return delegateTo(this.coworkers, coworker, question, context);
  }
}

/** The two delegation tools over `coworkers` (CrewAI's AgentTools). */
export function delegationTools(coworkers: readonly Agent[]): BaseTool[] {
  return [new DelegateWorkTool(coworkers), new AskQuestionTool(coworkers)];
}

/** `tools` with `added` merged in: a tool of `tools` with the same (sanitized) name as an added one is replaced by it. */
export function mergeTools(tools: readonly BaseTool[], added: readonly BaseTool[]): BaseTool[] {
  const names = new Set(added.map((t) => t.sanitizedName));
  return [...tools.filter((t) => !names.has(t.sanitizedName)), ...added];
}
