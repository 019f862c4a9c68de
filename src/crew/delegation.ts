import { HumanInputPending } from "../runtime/humanInputPending.js";
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

/**
 * Has the coworker named `coworker` do `request` as a new task; the answer, or what went wrong, is the
 * observation. As CrewAI, the coworker's agent runs the task directly: a delegated request is part of
 * the delegating task, so it emits agent events but no task events of its own.
 */
async function delegateTo(coworkers: readonly Agent[], coworker: string, request: string, context: string): Promise<string> {
  const agent = findCoworker(coworkers, coworker);
  if (!agent) return crewPrompts.unknownCoworker(coworker, coworkers.map((a) => a.role));
  try {
    const task = new Task({ description: request, expectedOutput: crewPrompts.delegatedExpectedOutput, agent });
    return await agent.executeTask(task, context.trim() ? context : undefined);
  } catch (error) {
    if (error instanceof HumanInputPending) throw error;
    // The manager gets the failure as an observation and can pick another coworker or rephrase.
    return crewPrompts.delegationFailed(agent.role, error instanceof Error ? error.message : String(error));
  }
}

/** What the two delegation tools share: the coworkers they reach, listed in the description. */
abstract class CoworkerTool<S extends z.ZodType> extends BaseTool<S> {
  readonly description: string;

  constructor(
    readonly coworkers: readonly Agent[],
    describe: (roles: string) => string,
  ) {
    super();
    this.description = describe(coworkers.map((agent) => agent.role).join(", "));
  }
}

/** CrewAI's "Delegate work to coworker": a coworker does a task with the given context and returns the result. */
export class DelegateWorkTool extends CoworkerTool<typeof delegateWorkSchema> {
  readonly name = "Delegate work to coworker";
  readonly schema = delegateWorkSchema;

  constructor(coworkers: readonly Agent[]) {
    super(coworkers, crewPrompts.delegateWorkDescription);
  }

  /** The coworker's answer to the task, or a note on what went wrong, as the observation. */
  run({ task, context, coworker }: z.infer<typeof delegateWorkSchema>): Promise<string> {
    return delegateTo(this.coworkers, coworker, task, context);
  }
}

/** CrewAI's "Ask question to coworker": a coworker answers a question with the given context. */
export class AskQuestionTool extends CoworkerTool<typeof askQuestionSchema> {
  readonly name = "Ask question to coworker";
  readonly schema = askQuestionSchema;

  constructor(coworkers: readonly Agent[]) {
    super(coworkers, crewPrompts.askQuestionDescription);
  }

  /** The coworker's answer to the question, or a note on what went wrong, as the observation. */
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
