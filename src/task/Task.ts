import { rejectedWith } from "../llm/retry.js";
import { createHash, randomUUID } from "node:crypto";
import { isTrustedConstruction } from "../tools/trustedConstruction.js";
import { z } from "zod";
import type { Agent } from "../agent/Agent.js";
import type { ExecutorResult } from "../agent/AgentExecutor.js";
import { schemaToJsonText } from "../agent/OutputConverter.js";
import type { AgentTask } from "../agent/promptBuilder.js";
import { prompts } from "../agent/prompts.js";
import { eventBus } from "../events/EventBus.js";
import { shallowClone } from "../runtime/shallowClone.js";
import type { CallSource } from "../llm/types.js";
import type { BaseTool } from "../tools/BaseTool.js";
import { InterpolationError, TaskValidationError } from "./errors.js";
import { labelOf, type ResolvedGuardrail } from "./guardrails.js";
import { hasNoInputs, interpolate } from "./interpolate.js";
import { llmGuardrail } from "./LLMGuardrail.js";
import { checkInterpolatedOutputPath, writeOutputFile } from "./outputFile.js";
import { hasPlainPipeline, plainOutput, runTaskPipeline, type GuardrailRetries } from "./taskExecution.js";
import { taskOptionsShape, validateTaskOptions, type TaskOptions } from "./TaskOptions.js";
import { taskPrompts } from "./taskPrompts.js";
import type { TaskOutput } from "./TaskOutput.js";

/** What `executeSync` / `executeAsync` may override for one execution. */
export interface TaskExecuteOptions {
  /** The agent to use instead of the task's own. */
  agent?: Agent;
  /** Outputs of earlier tasks, as text. */
  context?: string;
  /** Tools to use instead of the task's (and the agent's). */
  tools?: BaseTool[];
  /** Ids added to the events and LLM calls of this execution (e.g. a crew's id). */
  source?: CallSource;
}

const taskOptionsSchema = z.object(taskOptionsShape).strict();

// Prototypes of crewts's own task classes, whose run copies are shallow clones (see copyForRun).
const clonedForRuns = new WeakSet<object>();

// The retry counts of an execution without guardrails (none to count), shared by all of them.
const NO_GUARDRAIL_RETRIES: number[] = Object.freeze([]) as unknown as number[];

/** Lets copyForRun clone tasks of a crewts task class shallowly (it has no #private state). */
export function cloneTasksForRuns(proto: object): void {
  clonedForRuns.add(proto);
}

/** A unit of work for an agent: what to do, what a good answer looks like, and how to check and keep it. */
export class Task<S extends z.ZodType = z.ZodType> implements AgentTask {
  readonly id: string = randomUUID();
  name?: string;
  description: string;
  expectedOutput: string;
  agent?: Agent;
  context?: Task[];
  asyncExecution: boolean;
  outputSchema?: S;
  outputFile?: string;
  createDirectory: boolean;
  humanInput: boolean;
  markdown: boolean;
  guardrailMaxRetries: number;
  /** The last output, set when an execution succeeds. */
  output?: TaskOutput<z.infer<S>>;
  /** Guardrail retries of the last execution, over all guardrails. */
  retryCount = 0;
  /** Retries of the last execution per guardrail, in the order they run. */
  guardrailRetryCounts: number[] = [];
  startTime?: Date;
  endTime?: Date | undefined;
  /** The context text of the last execution. */
  promptContext?: string;
  /** Roles of the agents that have worked on this task. */
  readonly processedByAgents = new Set<string>();
  /** The options as given; the uninterpolated texts live here. */
  readonly options: Readonly<TaskOptions<S>>;
  /** The guardrails that run, in order: `guardrails` when given, else `guardrail` (CrewAI). */
  readonly resolvedGuardrails: readonly ResolvedGuardrail[];
  private ownToolList: BaseTool[];

  constructor(options: TaskOptions<S>) {
    if (!isTrustedConstruction()) validateTaskOptions(this.optionsSchema(), options, new.target.name);
    this.options = Object.freeze({ ...options });
    this.description = options.description;
    this.expectedOutput = options.expectedOutput;
    if (options.name !== undefined) this.name = options.name;
    if (options.agent !== undefined) this.agent = options.agent;
    if (options.context !== undefined) this.context = [...options.context];
    this.asyncExecution = options.asyncExecution ?? false;
    if (options.outputSchema !== undefined) this.outputSchema = options.outputSchema;
    if (options.outputFile !== undefined) this.outputFile = options.outputFile;
    this.createDirectory = options.createDirectory ?? true;
    this.ownToolList = [...(options.tools ?? [])];
    this.humanInput = options.humanInput ?? false;
    this.markdown = options.markdown ?? false;
    this.guardrailMaxRetries = options.guardrailMaxRetries ?? 3;
    const guardrails = options.guardrails?.length ? options.guardrails : options.guardrail !== undefined ? [options.guardrail] : [];
    this.resolvedGuardrails = guardrails.map((g): ResolvedGuardrail => {
      if (typeof g === "string") return { fn: llmGuardrail({ description: g }), label: g };
      return { fn: g, label: labelOf(g) };
    });
  }

  /**
   * The task's own tools, else its agent's (as CrewAI's Task, which takes the agent's tools when it has
   * none): what the task will work with. Assigning a list gives the task tools of its own.
   */
  get tools(): BaseTool[] {
    const inherited = this.ownToolList.length === 0 ? this.agent?.tools : undefined;
    // A frozen copy: pushing onto it must fail loudly rather than change the agent's tools.
    return inherited?.length ? Object.freeze([...inherited]) as BaseTool[] : this.ownToolList;
  }

  set tools(tools: BaseTool[]) {
    this.ownToolList = [...tools];
  }

  /** The tools given to the task itself, without its agent's: they replace the agent's when it executes. */
  get ownTools(): readonly BaseTool[] {
    return this.ownToolList;
  }

  /** Milliseconds the last execution took, once it has ended. */
  get executionDurationMs(): number | undefined {
    return this.startTime && this.endTime ? this.endTime.getTime() - this.startTime.getTime() : undefined;
  }

  /** A stable key from the original description and expected output (CrewAI's task.key): the same task across copies and runs. */
  get key(): string {
    return createHash("md5").update(`${this.options.description}|${this.options.expectedOutput}`).digest("hex");
  }

  /** The name, else the description: how errors and logs refer to the task. */
  get displayName(): string {
    return this.name ?? this.description;
  }

  /** The text the agent works on: description, expected output, Markdown and JSON instructions. */
  prompt(): string {
    let text = this.description;
    if (this.expectedOutput) text += prompts.expectedOutput(this.expectedOutput);
    if (this.markdown) text += taskPrompts.markdown;
    if (this.outputSchema) text += prompts.answerAsJson(schemaToJsonText(this.outputSchema));
    return text;
  }

  /** Runs the task and resolves with its output once it is converted, checked, called back and saved. */
  executeSync(opts: TaskExecuteOptions = {}): Promise<TaskOutput<z.infer<S>>> {
    return this.executeCore(opts);
  }

  /** Starts the task at once and returns its promise; errors surface when it is awaited, never as unhandled rejections. */
  executeAsync(opts: TaskExecuteOptions = {}): Promise<TaskOutput<z.infer<S>>> {
    const running = this.executeCore(opts);
    // The caller may await later (e.g. after starting other tasks); mark the rejection as handled meanwhile.
    running.catch(() => undefined);
    return running;
  }

  /** Fills `{placeholders}` in description, expected output and output file, always from the original texts. */
  interpolateInputs(inputs: Record<string, unknown>, fill: (text: string, inputs: Record<string, unknown>) => string = interpolate): void {
    // No inputs: the original texts as written (placeholders are left alone, as CrewAI does), which
    // also drops anything a previous kickoff appended, such as a plan.
    if (hasNoInputs(inputs)) {
      this.description = this.options.description;
      this.expectedOutput = this.options.expectedOutput;
      if (this.options.outputFile !== undefined) this.outputFile = this.options.outputFile;
      return;
    }
    this.description = this.interpolateField("description", this.options.description, inputs, fill);
    this.expectedOutput = this.interpolateField("expectedOutput", this.options.expectedOutput, inputs, fill);
    if (this.options.outputFile !== undefined) {
      const path = this.interpolateField("outputFile", this.options.outputFile, inputs, fill);
      checkInterpolatedOutputPath(path, this.options.outputFile, this.displayName);
      this.outputFile = path;
    }
  }

  /** A copy with a new id, the same options and current texts; `agentFor` and `contextFor` map the agent and context tasks. */
  copy(agentFor?: (agent: Agent) => Agent, contextFor?: (task: Task) => Task): Task<S> {
    const options: TaskOptions<S> = { ...this.options };
    if (this.agent !== undefined) options.agent = agentFor ? agentFor(this.agent) : this.agent;
    else delete options.agent;
    if (this.context !== undefined) options.context = contextFor ? this.context.map(contextFor) : [...this.context];
    options.tools = [...this.ownToolList];
    const Ctor = this.constructor as new (options: TaskOptions<S>) => Task<S>;
    const copied = new Ctor(options);
    copied.description = this.description;
    copied.expectedOutput = this.expectedOutput;
    if (this.outputFile !== undefined) copied.outputFile = this.outputFile;
    return copied;
  }

  /**
   * The task one crew run works with: a copy with the same id (events, replay records and verbose
   * output still name this task) and the last output (earlier tasks' outputs are a replay's context).
   * Fold what the run did back with `absorbRun`.
   */
  copyForRun(agentFor?: (agent: Agent) => Agent, contextFor?: (task: Task) => Task): Task<S> {
    const proto = Object.getPrototypeOf(this) as object;
    // A subclass of the user's may hold state a shallow clone would miss (#private fields): it is copied as a whole.
    if (!clonedForRuns.has(proto)) {
      const copied = this.copy(agentFor, contextFor);
      (copied as { id: string }).id = this.id;
      if (this.output !== undefined) copied.output = this.output;
      return copied;
    }
    // A run changes only its texts and its execution record, so a shallow clone is enough (no options
    // checked again, no new id): it shares the options and guardrails and starts with no execution shown.
    const copied = shallowClone<Task<S>>(this);
    if (this.agent !== undefined && agentFor) copied.agent = agentFor(this.agent);
    if (this.context !== undefined) copied.context = contextFor ? this.context.map(contextFor) : [...this.context];
    copied.ownToolList = [...this.ownToolList];
    // guardrailRetryCounts is replaced, never changed in place, when an execution ends; and the roles a
    // run's execution adds go straight to the original's processedByAgents (a run adds its agent's role
    // as it starts, as a direct execution does). Neither is copied: less for each run in flight to hold.
    copied.retryCount = 0;
    copied.startTime = undefined;
    copied.endTime = undefined;
    copied.promptContext = undefined;
    return copied;
  }

  /** Takes in what a run copy (see copyForRun) did, so the task shows its latest run as after a direct execution. */
  absorbRun(run: Task<S>): void {
    this.description = run.description;
    this.expectedOutput = run.expectedOutput;
    if (run.outputFile !== undefined) this.outputFile = run.outputFile;
    if (run.startTime === undefined) return;
    if (run.output !== undefined) this.output = run.output;
    this.retryCount = run.retryCount;
    this.guardrailRetryCounts = run.guardrailRetryCounts;
    this.startTime = run.startTime;
    this.endTime = run.endTime;
    if (run.promptContext !== undefined) this.promptContext = run.promptContext;
    // A run copy shares this task's set; a whole copy (a task subclass, see copyForRun) has its own.
    if (run.processedByAgents !== this.processedByAgents) for (const role of run.processedByAgents) this.processedByAgents.add(role);
  }

  /** Shows an execution that ended in the task's "last execution" fields. */
  private showExecution(execution: TaskExecution): void {
    execution.shown = true;
    this.startTime = new Date(execution.started);
    this.endTime = new Date();
    this.promptContext = execution.context;
    this.retryCount = execution.total;
    this.guardrailRetryCounts = execution.perGuardrail === NO_GUARDRAIL_RETRIES ? [] : execution.perGuardrail;
  }

  /** The schema the options are validated with; ConditionalTask extends it. */
  protected optionsSchema(): z.ZodObject {
    return taskOptionsSchema;
  }

  private interpolateField(field: string, text: string, inputs: Record<string, unknown>, fill: (text: string, inputs: Record<string, unknown>) => string): string {
    try {
      return fill(text, inputs);
    } catch (error) {
      if (error instanceof InterpolationError) throw new InterpolationError(`Cannot fill in the ${field} of task '${this.displayName}': ${error.message}`);
      throw error;
    }
  }

  // Not an async function: a run in flight holds the callbacks of one `then` here, not a suspended call.
  private executeCore(opts: TaskExecuteOptions): Promise<TaskOutput<z.infer<S>>> {
    const agent = opts.agent ?? this.agent;
    if (!agent) {
      return Promise.reject(
        new TaskValidationError(
          `The task '${this.description}' has no agent assigned, so it cannot be executed directly. ` +
            "Give it an agent (new Task({ ..., agent })), or run it in a Crew with a process that assigns agents, like hierarchical.",
        ),
      );
    }
    const context = opts.context ?? "";
    const started = Date.now();
    this.processedByAgents.add(agent.role);
    // Object.assign, not a spread with more keys: on Node 20 that makes a slow dictionary-mode object.
    const source: CallSource = Object.assign({}, opts.source);
    source.taskId = this.id;
    source.agentId = agent.id;
    source.agentRole = agent.role;
    if (this.name !== undefined) source.taskName = this.name;
    if (eventBus.hasListeners("task_started")) eventBus.emit("task_started", Object.assign({}, source, { taskId: this.id, context, taskDescription: this.description }));
    // As CrewAI: given tools, else the task's, else (undefined) the agent's own.
    const tools = opts.tools?.length ? opts.tools : this.tools.length ? this.tools : undefined;
    // This execution's own counters: executions of one task may run at the same time. The task shows
    // those of the execution that ended last.
    const perGuardrail = this.resolvedGuardrails.length > 0 ? this.resolvedGuardrails.map(() => 0) : NO_GUARDRAIL_RETRIES;
    const execution: TaskExecution = { agent, context, total: 0, perGuardrail, started, source, shown: false };
    const plain = hasPlainPipeline(this);
    let running: Promise<ExecutorResult | TaskOutput<z.infer<S>>>;
    try {
      running = plain ? agent.executeTaskDetailed(this, context, tools, source) : runTaskPipeline(this, { agent, context, tools, source, retries: execution });
    } catch (error) {
      running = rejectedWith(error);
    }
    return running.then(
      (result) => this.finishExecution(plain ? plainOutput<z.infer<S>>(this, agent, result as ExecutorResult) : (result as TaskOutput<z.infer<S>>), execution),
      (error: unknown) => this.failExecution(error, execution),
    );
  }

  /** Keeps and shows the output of an execution, runs its callback and writes its file. */
  private async finishExecution(output: TaskOutput<z.infer<S>>, execution: TaskExecution): Promise<TaskOutput<z.infer<S>>> {
    try {
      this.output = output;
      this.showExecution(execution);
      if (this.options.callback) await this.options.callback(output);
      if (this.outputFile !== undefined) await writeOutputFile(this.outputFile, output.toString(), this.createDirectory, this);
      if (eventBus.hasListeners("task_completed")) eventBus.emit("task_completed", Object.assign({}, execution.source, { taskId: this.id, output: output.raw }));
      return output;
    } catch (error) {
      return this.failExecution(error, execution);
    }
  }

  /** Shows a failed execution (unless it was shown already) and emits task_failed; rethrows `error`. */
  private failExecution(error: unknown, execution: TaskExecution): never {
    if (!execution.shown) this.showExecution(execution);
    if (eventBus.hasListeners("task_failed")) {
      eventBus.emit("task_failed", { ...execution.source, taskId: this.id, error: error instanceof Error ? error.message : String(error) });
    }
    throw error;
  }
}

/** What one execution of a task keeps until it ends, its guardrail retries (in all and per guardrail) among them. */
interface TaskExecution extends GuardrailRetries {
  agent: Agent;
  context: string;
  /** Date.now() when it started. */
  started: number;
  source: CallSource;
  /** Its start, end and counters are on the task already. */
  shown: boolean;
}

cloneTasksForRuns(Task.prototype);
