import { z } from "zod";
import { ConverterError, convertToSchema, schemaToJsonText } from "../agent/OutputConverter.js";
import { prompts } from "../agent/prompts.js";
import { callLLM } from "../llm/callLLM.js";
import { resolveLLM } from "../llm/resolveLLM.js";
import type { BaseLLM, CallSource } from "../llm/types.js";
import { addToUsageMetrics, emptyUsageMetrics, type UsageMetrics } from "../llm/UsageMetrics.js";

/** What the planner needs to know of an agent. */
export interface PlannableAgent {
  role: string;
  goal: string;
  tools?: readonly { name: string }[];
}

/** What the planner needs to know of a task; Task satisfies it. */
export interface PlannableTask {
  id: string;
  description: string;
  expectedOutput: string;
  agent?: PlannableAgent | undefined;
  tools?: readonly { name: string }[];
}

/** Options of planTasks. */
export interface PlanTasksOptions {
  /** The planner's model (a crew's `planningLLM`); default: CREWTS_MODEL / MODEL, else openai/gpt-4o-mini. */
  llm?: string | BaseLLM;
  /** Ids carried into the planner's LLM events (e.g. the crew's id). */
  source?: CallSource;
  /** Receives warnings about missing or duplicate plans; default: process.emitWarning. */
  warn?: (message: string) => void;
}

/** The plans made for a crew's tasks, keyed by task id, and the tokens planning spent. */
export interface TaskPlans {
  plans: Map<string, string>;
  usage: UsageMetrics;
}

/** Thrown when the planner's answer cannot be read as plans. */
export class PlanningError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PlanningError";
  }
}

/** The planner's structured answer (CrewAI's PlannerTaskPydanticOutput). */
export const plannerOutputSchema = z.object({
  list_of_plans_per_task: z
    .array(
      z.object({
        task_number: z.number().int().min(1).optional().describe("The number of the task this plan is for, counting from 1"),
        task: z.string().describe("The task the plan is for"),
        plan: z.string().describe("A detailed step-by-step plan for how the agent carries out the task with the tools it has"),
      }),
    )
    .describe("One plan per task, in task order"),
});

/** The planner's structured answer. */
export type PlannerOutput = z.infer<typeof plannerOutputSchema>;

/** CrewAI's "Task Execution Planner", in our words. */
export const PLANNER_AGENT = {
  role: "Task Execution Planner",
  goal:
    "Write a thorough step-by-step plan for every task, based on the task itself and the tools and goal of the agent doing it, " +
    "so that each agent can carry out its task flawlessly",
  backstory: "You plan the work of a crew of agents before they start, so that each of them knows exactly what to do and how.",
} as const;

const planningPrompts = {
  request: (tasksSummary: string, team: string, schema: string): string =>
    `These are the tasks the crew will carry out, in order:\n${tasksSummary}\n\n` +
    (team ? `The agents of the crew:\n${team}\n\n` : "") +
    "For every task, write the most detailed plan you can: the steps its agent should take, which of its tools to use " +
    "and when, and how to reach the expected output, in line with the agent's goal. Give exactly one plan per task, " +
    "in task order, with task_number set to the number of the task." +
    prompts.jsonOutput(schema),
  heading: "\n\nPlan for this task (written by the crew's planner):\n",
} as const;

/**
 * CrewAI's CrewPlanner: a planner agent reads a summary of every task (description, expected output,
 * agent role, goal and tools) and writes a step-by-step plan per task. Tasks the planner gave no plan
 * run without one, with a warning, as in CrewAI.
 */
export async function planTasks(tasks: readonly PlannableTask[], agents: readonly PlannableAgent[], options: PlanTasksOptions = {}): Promise<TaskPlans> {
  const usage = emptyUsageMetrics();
  const plans = new Map<string, string>();
  if (tasks.length === 0) return { plans, usage };
  const warn = options.warn ?? ((message: string) => process.emitWarning(message, { code: "CREWTS_PLANNING" }));
  const llm = resolveLLM(options.llm);
  const source: CallSource = { ...options.source, agentRole: PLANNER_AGENT.role };

  const schemaText = schemaToJsonText(plannerOutputSchema);
  const result = await callLLM(
    llm,
    [
      { role: "system", content: prompts.rolePlaying(PLANNER_AGENT.role, PLANNER_AGENT.goal, PLANNER_AGENT.backstory) },
      { role: "user", content: planningPrompts.request(summarizeTasks(tasks), summarizeAgents(agents), schemaText) },
    ],
    { source },
  );
  addToUsageMetrics(usage, result.usage);

  let output: PlannerOutput;
  try {
    const conversion = await convertToSchema(result.text, plannerOutputSchema, { llm, source });
    addToUsageMetrics(usage, conversion.usage);
    output = conversion.parsed;
  } catch (error) {
    if (!(error instanceof ConverterError)) throw error;
    throw new PlanningError(
      `The planner's answer could not be read as one plan per task (${error.message}). ` +
        "Use a planning model that follows JSON instructions (planningLLM), or turn planning off.",
      { cause: error },
    );
  }

  const byNumber = new Map<number, string>();
  output.list_of_plans_per_task.forEach((entry, position) => {
    const taskNumber = entry.task_number ?? position + 1;
    if (byNumber.has(taskNumber)) warn(`The planner wrote more than one plan for task ${taskNumber}; the first one is used.`);
    else if (taskNumber > tasks.length) warn(`The planner wrote a plan for task ${taskNumber}, but the crew has ${tasks.length} task(s); it is ignored.`);
    else byNumber.set(taskNumber, entry.plan);
  });
  tasks.forEach((task, index) => {
    const plan = byNumber.get(index + 1);
    if (plan?.trim()) plans.set(task.id, plan.trim());
    else warn(`The planner wrote no plan for task ${index + 1} (${preview(task.description)}); it runs without one.`);
  });
  return { plans, usage };
}

/** Adds a plan to a task's description, where the agent reads it (CrewAI appends plans to descriptions before execution). */
export function appendPlan(task: { description: string }, plan: string): void {
  if (!plan.trim()) return;
  task.description += planningPrompts.heading + plan.trim();
}

/** Appends each task's plan from `plans` (keyed by task id) to its description. */
export function applyPlans(tasks: readonly (PlannableTask & { description: string })[], plans: ReadonlyMap<string, string>): void {
  for (const task of tasks) {
    const plan = plans.get(task.id);
    if (plan !== undefined) appendPlan(task, plan);
  }
}

/** The summary of every task the planner reads. */
export function summarizeTasks(tasks: readonly PlannableTask[]): string {
  return tasks
    .map((task, index) =>
      [
        `Task number ${index + 1}:`,
        `  description: ${task.description}`,
        `  expected output: ${task.expectedOutput}`,
        `  agent: ${task.agent?.role ?? "none assigned"}`,
        `  agent goal: ${task.agent?.goal ?? "none"}`,
        `  task tools: ${toolList(task.tools, "none")}`,
        `  agent tools: ${toolList(task.agent?.tools, "the agent has no tools")}`,
      ].join("\n"),
    )
    .join("\n\n");
}

function summarizeAgents(agents: readonly PlannableAgent[]): string {
  return agents.map((agent) => `- ${agent.role}: ${agent.goal} (tools: ${toolList(agent.tools, "none")})`).join("\n");
}

function toolList(tools: readonly { name: string }[] | undefined, none: string): string {
  return tools && tools.length > 0 ? `[${tools.map((t) => t.name).join(", ")}]` : none;
}

function preview(text: string): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return JSON.stringify(oneLine.length > 60 ? `${oneLine.slice(0, 57)}...` : oneLine);
}
