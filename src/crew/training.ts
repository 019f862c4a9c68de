import { mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { dirname, extname, resolve } from "node:path";
import { createInterface } from "node:readline";
import { z } from "zod";
import { convertToSchema, schemaToJsonText } from "../agent/OutputConverter.js";
import { prompts } from "../agent/prompts.js";
import { callLLM } from "../llm/callLLM.js";
import type { BaseLLM } from "../llm/types.js";
import { addToUsageMetrics, emptyUsageMetrics, type UsageMetrics } from "../llm/UsageMetrics.js";
import type { TaskOutput } from "../task/TaskOutput.js";

/** The default file trained agent data is kept in (CrewAI's trained_agents_data, as JSON). */
export const TRAINED_AGENTS_DATA_FILE = "trained_agents_data.json";

/** What training needs of an agent; Agent satisfies it. */
export interface TrainableAgent {
  role: string;
  llm: BaseLLM;
  allowDelegation?: boolean;
}

/** What training needs of a crew; Crew satisfies it. */
export interface TrainableCrew {
  agents: readonly TrainableAgent[];
  tasks: readonly { id: string; description: string }[];
  kickoff(inputs: Record<string, unknown> | undefined, options: { stream: false }): Promise<{ tasksOutput: readonly TaskOutput[] }>;
  /** When present, training runs on a copy so the crew itself is left as it was (CrewAI does the same). */
  copy?(): TrainableCrew;
}

/** Human feedback for one kickoff: one text for every task output, or one per task output, in order. */
export type TrainingFeedback = (taskOutputs: TaskOutput[], info: { iteration: number }) => string | string[] | Promise<string | string[]>;

/** Options of trainCrew (and crew.train). */
export interface TrainCrewOptions {
  /** How many times the crew runs and is given feedback. */
  iterations: number;
  /** The JSON file the trained data is saved to (e.g. "trained_agents_data.json"); other agents' data in it is kept. */
  filename: string;
  inputs?: Record<string, unknown>;
  /** Gives the feedback; without it a human is asked on the terminal. */
  feedback?: TrainingFeedback;
  /** Where to ask when there is no feedback function; default: process.stdin / process.stdout, which must be a terminal. */
  io?: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream };
}

/** One task output of a training run with the human feedback it got. */
export interface TrainingRecord {
  iteration: number;
  taskId?: string;
  task: string;
  expectedOutput: string;
  initialOutput: string;
  humanFeedback: string;
}

/** What training learned for one agent (CrewAI's TrainingTaskEvaluation). */
export interface TrainedAgentData {
  suggestions: string[];
  /** 0 to 10. */
  quality: number;
  finalSummary: string;
}

/** The content of a trained data file: per agent role. */
export type TrainedAgentsData = Record<string, TrainedAgentData>;

/** What trainCrew returns. */
export interface TrainingResult {
  /** The absolute path of the saved file. */
  filename: string;
  /** The data learned in this training, per agent role (the file may hold other roles too). */
  trainedAgents: TrainedAgentsData;
  /** The raw training data: every output and its feedback, per agent role and iteration. */
  trainingData: Record<string, TrainingRecord[]>;
  /** Tokens spent evaluating the feedback (the kickoffs report their own). */
  usage: UsageMetrics;
}

/** Thrown when training cannot start or its data cannot be read or saved. */
export class TrainingError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "TrainingError";
  }
}

const trainedAgentSchema = z.object({
  suggestions: z.array(z.string()).describe("Clear, actionable instructions for the agent's future work, covering every point of the human feedback"),
  quality: z.coerce.number().describe("A score from 0 to 10 of how well the agent's outputs met the task and the feedback"),
  finalSummary: z.string().describe("Step-by-step action items for the agent's next tasks, drawn from the feedback"),
});

const trainedFileSchema = z.record(z.string(), trainedAgentSchema);

const optionsSchema = z.object({
  iterations: z.number().int().positive(),
  filename: z.string(),
  inputs: z.record(z.string(), z.unknown()).optional(),
  feedback: z.custom<TrainingFeedback>((value) => typeof value === "function", "must be a function").optional(),
  io: z.object({ input: z.custom<NodeJS.ReadableStream>(), output: z.custom<NodeJS.WritableStream>() }).optional(),
});

const trainingPrompts = {
  system:
    "You turn human feedback on an agent's work into clear instructions that make the agent do better next time. " +
    "You reply with one JSON object only.",
  record: (r: TrainingRecord): string =>
    `Iteration ${r.iteration + 1}\nTask:\n${r.task}\n\nExpected output:\n${r.expectedOutput}\n\n` +
    `Output of the agent:\n${r.initialOutput}\n\nHuman feedback:\n${r.humanFeedback.trim() || "(none: the human accepted the output as it was)"}\n\n---\n\n`,
  request: (role: string, records: string, schema: string): string =>
    `Below are outputs of the agent "${role}" during training, each with the feedback a human gave on it.\n\n${records}` +
    "Provide:\n" +
    "- suggestions: a list of clear, actionable instructions, drawn from the human feedback, that the agent must follow in " +
    "future tasks; include every specific point the human made.\n" +
    "- quality: a score from 0 to 10 of the agent's outputs, judged against the tasks and the feedback.\n" +
    "- finalSummary: step-by-step action items for the agent's next tasks." +
    prompts.jsonOutput(schema),
  instructions: (suggestions: string[]): string =>
    `Follow these instructions, learned from human feedback on your earlier work:\n${suggestions.map((s) => ` - ${s}`).join("\n")}`,
  terminalHeader: (iteration: number, index: number, total: number, output: TaskOutput): string =>
    `\n=== Training iteration ${iteration + 1}, task ${index + 1}/${total} (${output.agent}) ===\n${output.raw}\n`,
  terminalQuestion: "\nYour feedback on this output (what should change? press Enter if it is good): ",
} as const;

/**
 * CrewAI's crew.train: runs the crew `iterations` times, collects human feedback on every task output,
 * then has each agent's LLM turn its feedback into instructions, saved per agent role to `filename`.
 */
export async function trainCrew(crew: TrainableCrew, options: TrainCrewOptions): Promise<TrainingResult> {
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) {
    throw new TrainingError(`Invalid training options: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(options)"}: ${i.message}`).join("; ")}.`);
  }
  const filename = await checkFilename(options.filename);
  // Read first: a file that is not trained data is reported before any LLM call is spent.
  const existing = (await loadTrainedAgents(filename)) ?? {};
  const ask = options.feedback ?? terminalFeedback(options.io);

  const trainee = crew.copy ? crew.copy() : crew;
  // Delegation would let another agent's work land under this agent's output (CrewAI turns it off too).
  if (trainee !== crew) for (const agent of trainee.agents) if (agent.allowDelegation !== undefined) agent.allowDelegation = false;

  const trainingData: Record<string, TrainingRecord[]> = {};
  for (let iteration = 0; iteration < options.iterations; iteration++) {
    const { tasksOutput } = await trainee.kickoff(options.inputs ?? {}, { stream: false });
    const outputs = [...tasksOutput];
    const feedback = await ask(outputs, { iteration });
    const perOutput = typeof feedback === "string" ? outputs.map(() => feedback) : feedback;
    if (!Array.isArray(perOutput) || perOutput.length !== outputs.length || perOutput.some((f) => typeof f !== "string")) {
      throw new TrainingError(
        `The feedback for iteration ${iteration + 1} must be a string or an array of ${outputs.length} strings (one per task output).`,
      );
    }
    outputs.forEach((output, index) => {
      const task = outputs.length === trainee.tasks.length ? trainee.tasks[index] : trainee.tasks.find((t) => t.description === output.description);
      const records = (trainingData[output.agent] ??= []);
      records.push({
        iteration,
        ...(task ? { taskId: task.id } : {}),
        task: output.description,
        expectedOutput: output.expectedOutput ?? "",
        initialOutput: output.raw,
        humanFeedback: perOutput[index] ?? "",
      });
    });
  }

  const usage = emptyUsageMetrics();
  const trainedAgents: TrainedAgentsData = {};
  for (const [role, records] of Object.entries(trainingData)) {
    const agent = findAgent(trainee.agents, role);
    if (!agent) {
      // CrewAI evaluates only the crew's own agents (a hierarchical manager is not one of them).
      process.emitWarning(`Training feedback on outputs of "${role}" is not used: no agent of the crew has that role.`, { code: "CREWTS_TRAINING" });
      continue;
    }
    trainedAgents[agent.role] = await evaluateTrainingData(agent, records, usage);
  }

  await saveTrainedAgents(filename, { ...existing, ...trainedAgents });
  return { filename, trainedAgents, trainingData, usage };
}

/** CrewAI's TaskEvaluator.evaluate_training_data: the agent's LLM turns its outputs and their feedback into instructions. */
export async function evaluateTrainingData(
  agent: TrainableAgent,
  records: readonly TrainingRecord[],
  usage: UsageMetrics = emptyUsageMetrics(),
): Promise<TrainedAgentData> {
  const source = { agentRole: agent.role };
  const result = await callLLM(
    agent.llm,
    [
      { role: "system", content: trainingPrompts.system },
      { role: "user", content: trainingPrompts.request(agent.role, records.map(trainingPrompts.record).join(""), schemaToJsonText(trainedAgentSchema)) },
    ],
    { source },
  );
  addToUsageMetrics(usage, result.usage);
  const conversion = await convertToSchema(result.text, trainedAgentSchema, { llm: agent.llm, source });
  addToUsageMetrics(usage, conversion.usage);
  const { suggestions, quality, finalSummary } = conversion.parsed;
  return { suggestions: suggestions.map((s) => s.trim()).filter(Boolean), quality: Math.min(10, Math.max(0, quality)), finalSummary };
}

/** Reads a trained data file; undefined when it does not exist, a TrainingError when it is not trained data. */
export async function loadTrainedAgents(filename: string = TRAINED_AGENTS_DATA_FILE): Promise<TrainedAgentsData | undefined> {
  let text: string;
  try {
    text = await readFile(filename, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new TrainingError(`Could not read the trained data file ${filename}: ${(error as Error).message}`, { cause: error });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new TrainingError(`${filename} is not valid JSON, so it holds no trained data. Train again (crewts train) or delete the file.`, { cause: error });
  }
  const checked = trainedFileSchema.safeParse(data);
  if (!checked.success) {
    throw new TrainingError(
      `${filename} is not a trained data file: expected { [agentRole]: { suggestions, quality, finalSummary } }. Use another filename or delete the file.`,
    );
  }
  return checked.data;
}

/** The text an agent adds to its system prompt when training data exists for its role (exact match first, then ignoring case). */
export function trainedInstructionsFor(data: TrainedAgentsData | undefined, role: string): string | undefined {
  if (!data) return undefined;
  const entry = data[role] ?? Object.entries(data).find(([key]) => key.trim().toLowerCase() === role.trim().toLowerCase())?.[1];
  if (!entry || entry.suggestions.length === 0) return undefined;
  return trainingPrompts.instructions(entry.suggestions);
}

async function saveTrainedAgents(filename: string, data: TrainedAgentsData): Promise<void> {
  try {
    await mkdir(dirname(filename), { recursive: true });
    // Write then rename, so an interrupted save never leaves half a file where good data was.
    const temporary = `${filename}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(data, null, 2)}\n`, "utf8");
    await rename(temporary, filename);
  } catch (error) {
    throw new TrainingError(`Could not save the trained data to ${filename}: ${(error as Error).message}`, { cause: error });
  }
}

async function checkFilename(filename: string): Promise<string> {
  if (!filename.trim() || filename.includes("\0")) {
    throw new TrainingError(`filename must name a JSON file, such as "${TRAINED_AGENTS_DATA_FILE}"; got ${JSON.stringify(filename)}.`);
  }
  if (extname(filename).toLowerCase() !== ".json") {
    throw new TrainingError(`filename must end with .json (trained data is saved as JSON); got ${JSON.stringify(filename)}. Try "${TRAINED_AGENTS_DATA_FILE}".`);
  }
  const absolute = resolve(filename);
  const info = await stat(absolute).catch(() => undefined);
  if (info && !info.isFile()) throw new TrainingError(`filename ${JSON.stringify(filename)} exists and is not a file; choose another name.`);
  return absolute;
}

function findAgent(agents: readonly TrainableAgent[], role: string): TrainableAgent | undefined {
  return agents.find((a) => a.role === role) ?? agents.find((a) => a.role.trim().toLowerCase() === role.trim().toLowerCase());
}

function terminalFeedback(io: TrainCrewOptions["io"]): TrainingFeedback {
  // Checked before the first kickoff: a run that cannot be given feedback would waste every LLM call.
  if (!io && !(process.stdin.isTTY && process.stdout.isTTY)) {
    throw new TrainingError(
      "Training needs human feedback, but stdin/stdout is not a terminal and no feedback function was given. " +
        "Run it in an interactive terminal, or pass feedback: (taskOutputs) => \"...\" to crew.train().",
    );
  }
  const { input, output } = io ?? { input: process.stdin, output: process.stdout };
  return async (outputs, { iteration }) => {
    const rl = createInterface({ input, terminal: false });
    // The line iterator buffers, so answers typed (or piped) ahead of a question are not lost.
    const lines = rl[Symbol.asyncIterator]();
    try {
      const answers: string[] = [];
      for (const [index, taskOutput] of outputs.entries()) {
        output.write(trainingPrompts.terminalHeader(iteration, index, outputs.length, taskOutput) + trainingPrompts.terminalQuestion);
        const line = await lines.next();
        if (line.done) throw new TrainingError("The input ended before feedback was given on every task output; training stopped.");
        answers.push(line.value.trim());
      }
      return answers;
    } finally {
      rl.close();
    }
  };
}

/**
 * What a crew's kickoffs apply of `crew.train`: the trained file it names (whose errors fail the
 * kickoff), else the default file, whose errors only warn since nobody asked for it.
 */
export async function readTrainedAgents(file: string | undefined): Promise<TrainedAgentsData | undefined> {
  try {
    return await loadTrainedAgents(file ?? TRAINED_AGENTS_DATA_FILE);
  } catch (error) {
    if (file !== undefined) throw error;
    process.emitWarning(`Trained agent data not used: ${(error as Error).message}`, { code: "CREWTS_TRAINED_DATA" });
    return undefined;
  }
}

/**
 * What a crew's kickoffs apply of `crew.train`, read once (by the first kickoff) and kept until
 * `forget()` (train() calls it). Once it is known, a kickoff applies it without waiting.
 */
export class TrainedDataCache {
  private reading: Promise<TrainedAgentsData | undefined> | undefined;
  private read: { from: Promise<TrainedAgentsData | undefined>; data: TrainedAgentsData | undefined } | undefined;

  constructor(private readonly file: string | undefined) {}

  /** Whether the data (or its absence) has been read. */
  known(): boolean {
    return this.reading !== undefined && this.read?.from === this.reading;
  }

  /** Gives each agent of `members` the guidance saved for its role, once the data is known (see `known`). */
  applyKnown(members: { applyTrainedData(data: TrainedAgentsData): void }): void {
    if (this.known() && this.read?.data) members.applyTrainedData(this.read.data);
  }

  /** Reads the data when not read yet, then applies it. A broken trainedAgentsFile rejects (see readTrainedAgents). */
  async apply(members: { applyTrainedData(data: TrainedAgentsData): void }): Promise<void> {
    const reading = (this.reading ??= readTrainedAgents(this.file));
    const data = await reading;
    if (this.reading === reading) this.read = { from: reading, data };
    if (data) members.applyTrainedData(data);
  }

  /** Forgets what was read: the next kickoff reads the file again. */
  forget(): void {
    this.reading = undefined;
    this.read = undefined;
  }
}
