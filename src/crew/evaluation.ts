import { performance } from "node:perf_hooks";
import { z } from "zod";
import { convertToSchema, schemaToJsonText } from "../agent/OutputConverter.js";
import { prompts } from "../agent/prompts.js";
import { eventBus } from "../events/EventBus.js";
import { callLLM } from "../llm/callLLM.js";
import { isBaseLLM, resolveLLM } from "../llm/resolveLLM.js";
import type { BaseLLM } from "../llm/types.js";
import { addToUsageMetrics, emptyUsageMetrics, type UsageMetrics } from "../llm/UsageMetrics.js";
import type { TaskOutput } from "../task/TaskOutput.js";

/** What the evaluator needs of a task; Task satisfies it. */
export interface TestableTask {
  id: string;
  description: string;
  expectedOutput: string;
  agent?: { role: string; goal: string } | undefined;
  /** How long the last execution took; when absent, it is measured from task events. */
  readonly executionDurationMs?: number | undefined;
  /** Roles of the agents that worked on the task (shown in the table). */
  readonly processedByAgents?: ReadonlySet<string>;
}

/** What crew testing needs of a crew; Crew satisfies it. */
export interface TestableCrew {
  tasks: readonly TestableTask[];
  kickoff(inputs: Record<string, unknown> | undefined, options: { stream: false }): Promise<{ tasksOutput: readonly TaskOutput[] }>;
  /** When present, the runs happen on a copy, as CrewAI does. */
  copy?(): TestableCrew;
}

/** Options of testCrew (and crew.test). */
export interface TestCrewOptions {
  iterations: number;
  /** The model that scores the outputs. */
  evalLLM: string | BaseLLM;
  inputs?: Record<string, unknown>;
  /** Receives the score table; default: stdout. */
  print?: (text: string) => void;
}

/** The scores and times of one run. */
export interface TestRun {
  /** One score (1 to 10) per task, in task order; NaN for a task that produced no output. */
  taskScores: number[];
  /** Execution time of each task, in milliseconds, in task order. */
  durationsMs: number[];
  /** Wall time of the whole kickoff, in milliseconds. */
  totalDurationMs: number;
}

/** What testCrew returns. */
export interface CrewTestResult {
  iterations: TestRun[];
  averages: {
    /** Per task, over the runs. */
    taskScores: number[];
    /** Per run, over the tasks (the "Crew" row). */
    runScores: number[];
    /** Over every task and run. */
    overall: number;
    /** Mean kickoff wall time, in milliseconds. */
    durationMs: number;
  };
  /** The printed table. */
  table: string;
  /** Tokens the evaluator spent (the kickoffs report their own). */
  usage: UsageMetrics;
}

/** Thrown when crew testing is given invalid options. */
export class CrewTestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CrewTestError";
  }
}

/** The evaluator's structured answer (CrewAI's TaskEvaluationPydanticOutput). */
export const taskScoreSchema = z.object({
  quality: z.coerce.number().describe("A score from 1 to 10 of how completely and how well the output does the task and meets its expected output"),
});

/** CrewAI's "Task Execution Evaluator", in our words. */
export const EVALUATOR_AGENT = {
  role: "Task Execution Evaluator",
  goal: "Score the work of the agents of a crew on each task from 1 to 10, judging completeness, quality and overall performance",
  backstory: "You review the results of a crew's tasks and rate each one precisely and fairly against what the task asked for.",
} as const;

const evaluationPrompts = {
  request: (task: TestableTask, output: string, schema: string): string =>
    "Compare the output below with the task's description and expected output, and score how well the agent did, " +
    "from 1 (the task is not done) to 10 (complete and excellent), judging completeness, quality and overall performance.\n\n" +
    `Task description:\n${task.description}\n\nExpected output:\n${task.expectedOutput}\n\n` +
    `Agent: ${task.agent?.role ?? "none"}\nAgent goal: ${task.agent?.goal ?? "none"}\n\nTask output:\n${output}` +
    prompts.jsonOutput(schema),
} as const;

const optionsSchema = z.object({
  iterations: z.number().int().positive(),
  evalLLM: z.custom<string | BaseLLM>((value) => (typeof value === "string" && value.trim() !== "") || isBaseLLM(value), "must be a model string or a BaseLLM"),
  inputs: z.record(z.string(), z.unknown()).optional(),
  print: z.custom<(text: string) => void>((value) => typeof value === "function", "must be a function").optional(),
});

/**
 * CrewAI's crew.test: runs the crew `iterations` times, has `evalLLM` score every task output from 1 to 10
 * against the task's description and expected output, and prints a table of the scores and times.
 */
export async function testCrew(crew: TestableCrew, options: TestCrewOptions): Promise<CrewTestResult> {
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) {
    throw new CrewTestError(`Invalid crew test options: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(options)"}: ${i.message}`).join("; ")}.`);
  }
  const llm = resolveLLM(options.evalLLM);
  const print = options.print ?? ((text: string) => void process.stdout.write(`${text}\n`));
  const tested = crew.copy ? crew.copy() : crew;
  const usage = emptyUsageMetrics();
  const runs: TestRun[] = [];
  const agentsPerTask = tested.tasks.map(() => new Set<string>());

  for (let iteration = 0; iteration < options.iterations; iteration++) {
    const timer = new TaskTimer();
    const started = performance.now();
    let tasksOutput: readonly TaskOutput[];
    try {
      ({ tasksOutput } = await tested.kickoff(options.inputs ?? {}, { stream: false }));
    } finally {
      timer.stop();
    }
    const totalDurationMs = performance.now() - started;
    const taskScores: number[] = [];
    const durationsMs: number[] = [];
    for (const [index, task] of tested.tasks.entries()) {
      const output = tasksOutput.length === tested.tasks.length ? tasksOutput[index] : tasksOutput.find((o) => o.description === task.description);
      if (output) agentsPerTask[index]?.add(output.agent);
      for (const role of task.processedByAgents ?? []) agentsPerTask[index]?.add(role);
      taskScores.push(output ? await scoreTaskOutput(llm, task, output.raw, usage) : Number.NaN);
      durationsMs.push(task.executionDurationMs ?? timer.durationOf(task.id) ?? 0);
    }
    runs.push({ taskScores, durationsMs, totalDurationMs });
  }

  const taskAverages = tested.tasks.map((_, index) => mean(runs.map((run) => run.taskScores[index] ?? Number.NaN)));
  const runScores = runs.map((run) => mean(run.taskScores));
  const averages = {
    taskScores: taskAverages,
    runScores,
    overall: mean(runs.flatMap((run) => run.taskScores)),
    durationMs: mean(runs.map((run) => run.totalDurationMs)),
  };
  const table = formatTestTable(runs, averages, agentsPerTask.map((roles) => [...roles]));
  print(table);
  return { iterations: runs, averages, table, usage };
}

/** Has `llm` score one task output from 1 to 10 (CrewAI's CrewEvaluator.evaluate). */
export async function scoreTaskOutput(llm: BaseLLM, task: TestableTask, output: string, usage: UsageMetrics = emptyUsageMetrics()): Promise<number> {
  const source = { agentRole: EVALUATOR_AGENT.role, taskId: task.id };
  const result = await callLLM(
    llm,
    [
      { role: "system", content: prompts.rolePlaying(EVALUATOR_AGENT.role, EVALUATOR_AGENT.goal, EVALUATOR_AGENT.backstory) },
      { role: "user", content: evaluationPrompts.request(task, output, schemaToJsonText(taskScoreSchema)) },
    ],
    { source },
  );
  addToUsageMetrics(usage, result.usage);
  const conversion = await convertToSchema(result.text, taskScoreSchema, { llm, source });
  addToUsageMetrics(usage, conversion.usage);
  // Models asked for 1 to 10 sometimes answer 0 or 100; the table must stay on one scale.
  return Math.min(10, Math.max(1, conversion.parsed.quality));
}

/** The score table CrewAI prints after `crewai test`: tasks by runs, averages, agents and execution times. */
export function formatTestTable(runs: readonly TestRun[], averages: CrewTestResult["averages"], agentsPerTask: readonly string[][]): string {
  const runColumns = runs.map((_, index) => `Run ${index + 1}`);
  const header = ["Tasks/Crew/Agents", ...runColumns, "Avg. Total", "Agents"];
  const rows: string[][] = [];
  const blank = (): string[] => header.map(() => "");
  agentsPerTask.forEach((agents, taskIndex) => {
    rows.push([
      `Task ${taskIndex + 1}`,
      ...runs.map((run) => score(run.taskScores[taskIndex], 1)),
      score(averages.taskScores[taskIndex], 1),
      agents[0] !== undefined ? `- ${agents[0]}` : "",
    ]);
    for (const agent of agents.slice(1)) rows.push([...blank().slice(0, -1), `- ${agent}`]);
  });
  const totalsAt = rows.length;
  rows.push(["Crew", ...averages.runScores.map((s) => score(s, 2)), score(averages.overall, 1), ""]);
  rows.push(["Execution Time (s)", ...runs.map((run) => seconds(run.totalDurationMs)), seconds(averages.durationMs), ""]);

  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (cells: readonly string[]): string => `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(" | ")} |`;
  const rule = `+${widths.map((w) => "-".repeat(w + 2)).join("+")}+`;
  // A rule (not an empty row) sets the crew's totals apart from the tasks, as in CrewAI's table.
  return ["Tasks Scores", "(1-10, higher is better)", rule, line(header), rule, ...rows.slice(0, totalsAt).map(line), rule, ...rows.slice(totalsAt).map(line), rule].join("\n");
}

// Measures task durations from task events, for task objects that do not time themselves.
class TaskTimer {
  private readonly started = new Map<string, number>();
  private readonly durations = new Map<string, number>();
  private readonly offs = [
    eventBus.on("task_started", (event) => void this.started.set(event.taskId, performance.now())),
    eventBus.on("task_completed", (event) => {
      const start = this.started.get(event.taskId);
      if (start !== undefined) this.durations.set(event.taskId, performance.now() - start);
    }),
  ];

  /** Milliseconds between the task's started and completed events, once both were seen. */
  durationOf(taskId: string): number | undefined {
    return this.durations.get(taskId);
  }

  /** Stops listening to task events. */
  stop(): void {
    for (const off of this.offs) off();
  }
}

function mean(values: readonly number[]): number {
  const finite = values.filter((v) => Number.isFinite(v));
  return finite.length === 0 ? Number.NaN : finite.reduce((sum, v) => sum + v, 0) / finite.length;
}

const score = (value: number | undefined, digits: number): string => (value !== undefined && Number.isFinite(value) ? value.toFixed(digits) : "-");

const seconds = (ms: number): string => (ms / 1000).toFixed(1);
