import { rejectedWith } from "../llm/retry.js";
import { HumanInputPending } from "../runtime/humanInputPending.js";
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { eventBus } from "../events/EventBus.js";
import { VerbosePrinter } from "../events/VerbosePrinter.js";
import type { Embedder } from "../knowledge/embedders/Embedder.js";
import { resolveEmbedder } from "../knowledge/embedders/resolveEmbedder.js";
import { Knowledge } from "../knowledge/Knowledge.js";
import { hideSecrets } from "../llm/hideSecrets.js";
import type { KickoffMemory } from "../memory/MemorySet.js";
import { MCPSession } from "../mcp/MCPSession.js";
import { resolveLLM } from "../llm/resolveLLM.js";
import type { BaseLLM, CallSource, ChatMessage } from "../llm/types.js";
import { addToUsageMetrics, emptyUsageMetrics, type UsageMetrics } from "../llm/UsageMetrics.js";
import type { BaseTool } from "../tools/BaseTool.js";
import type { ToolCache } from "../tools/ToolCache.js";
import { ToolRunner, type ToolRunnerOptions } from "../tools/ToolRunner.js";
import { isTrustedConstruction, withTrustedConstruction } from "../tools/trustedConstruction.js";
import { unknownOptionMessage } from "../tools/unknownOption.js";
import { AgentExecutor, type AgentStep, type ExecutorConfig, type ExecutorResult } from "./AgentExecutor.js";
import type { AgentOutput } from "./AgentOutput.js";
import { agentOptionsSchema, type AgentOptions } from "./AgentOptions.js";
import { AgentConfigError } from "./errors.js";
import { buildMessages, buildTaskPrompt, type AgentTask } from "./promptBuilder.js";
import { RpmLimiter } from "./RpmLimiter.js";
import { runKickoff, streamKickoff } from "../runtime/kickoffRun.js";
import type { KickoffOptions } from "../runtime/KickoffOptions.js";
import { currentRun, eitherSignal } from "../runtime/runContext.js";
import { shallowClone } from "../runtime/shallowClone.js";
import type { StreamingOutput } from "../runtime/StreamingOutput.js";
import type { RequestLimiter } from "./requestLimiters.js";
import { PLAIN_LOOP, resumePausedAgent, type AgentLoopControl } from "./agentCheckpoints.js";
import { addTaskContext, hasTaskContext } from "./taskPromptContext.js";
import { withObservationMemory } from "./observationMemory.js";
import { errorMessage, isRetryableRunError, withTimeout } from "./runLimits.js";
import { kickoffAgent } from "./agentKickoff.js";
import { agentRunKey, recordPausedRun, type AgentRunState } from "../runtime/agentRunState.js";
import { hasHumanInputProvider } from "../runtime/humanInput.js";
import { checkpointConfigOf } from "../runtime/checkpoint/CheckpointRecorder.js";
import { forkCheckpoint, type ForkOptions } from "../runtime/checkpoint/forkCheckpoint.js";
import type { Checkpoint, CheckpointConfig } from "../runtime/checkpoint/types.js";

/** Options of agent.kickoff: the shared kickoff options and an optional schema for the answer. */
export interface AgentKickoffOptions<S extends z.ZodType = z.ZodType> extends KickoffOptions {
  outputSchema?: S;
}

/** An autonomous unit with a role, a goal and a backstory that uses tools and an LLM to do tasks. */
export class Agent {
  readonly id = randomUUID();
  role: string;
  goal: string;
  backstory: string;
  llm: BaseLLM;
  functionCallingLLM?: BaseLLM;
  tools: BaseTool[];
  maxIter: number;
  maxRpm?: number;
  maxExecutionTime?: number;
  maxRetryLimit: number;
  allowDelegation: boolean;
  verbose: boolean;
  cache: boolean;
  respectContextWindow: boolean;
  /** Token usage summed over every call this agent made. */
  readonly usageMetrics: UsageMetrics = emptyUsageMetrics();
  /** Set by a crew: its tool cache, shared by its agents for one kickoff. */
  toolsCache?: ToolCache | undefined;
  /** Set by a crew: its request limiter, shared by its agents. */
  crewRpmLimiter?: RequestLimiter | undefined;
  /** Set by a crew for one kickoff: its step callback, used when the agent has none of its own. */
  crewStepCallback?: ((step: AgentStep) => void | Promise<void>) | undefined;
  /** Set by a crew for one kickoff: the crew's knowledge, searched after the agent's own. */
  crewKnowledge?: Knowledge | undefined;
  /** Set by a crew for one kickoff: its memories (unless the agent has memory: false). */
  crewMemory?: KickoffMemory | undefined;
  /** Set by a crew for one kickoff: the crew's embedder, used for the agent's knowledge when it has none of its own. */
  crewEmbedder?: Embedder;
  /** Set by a crew for one kickoff: the MCP connections its agents share (closed when the kickoff ends). */
  crewMcp?: MCPSession | undefined;
  /** The agent's own knowledge (from knowledgeSources), created on first use and shared with its copies. */
  knowledge?: Knowledge;
  /** Set by training: guidance added to the system prompt. */
  trainedInstructions?: string;
  readonly options: Readonly<AgentOptions>;
  /** Where and when a standalone kickoff writes checkpoints (undefined: none). */
  readonly checkpointConfig: CheckpointConfig | undefined;
  private rpmLimiter?: RpmLimiter;
  private readonly embedder?: Embedder;

  constructor(options: AgentOptions) {
    const parsed = isTrustedConstruction() ? undefined : agentOptionsSchema.safeParse(options);
    if (parsed && !parsed.success) {
      const known = Object.keys(agentOptionsSchema.shape);
      const issues = parsed.error.issues.map((i) =>
        i.code === "unrecognized_keys" ? i.keys.map((k) => unknownOptionMessage(k, known, "Agent")).join("; ") : i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message,
      );
      throw new AgentConfigError(`Invalid Agent options: ${issues.join("; ")}.`);
    }
    // Kept as given, but an embedder key in them must not show when the agent is logged or serialized.
    this.options = hideSecrets(options);
    this.role = options.role;
    this.goal = options.goal;
    this.backstory = options.backstory;
    this.llm = resolveLLM(options.llm);
    if (options.functionCallingLLM !== undefined) this.functionCallingLLM = resolveLLM(options.functionCallingLLM);
    this.tools = [...(options.tools ?? [])];
    this.maxIter = options.maxIter ?? 25;
    this.maxRetryLimit = options.maxRetryLimit ?? 2;
    this.allowDelegation = options.allowDelegation ?? false;
    this.verbose = options.verbose ?? false;
    this.cache = options.cache ?? true;
    this.respectContextWindow = options.respectContextWindow ?? true;
    if (options.maxRpm !== undefined) {
      this.maxRpm = options.maxRpm;
      this.rpmLimiter = new RpmLimiter(options.maxRpm);
    }
    if (options.maxExecutionTime !== undefined) this.maxExecutionTime = options.maxExecutionTime;
    if (options.embedder !== undefined) this.embedder = resolveEmbedder(options.embedder);
    this.checkpointConfig = checkpointConfigOf(options.checkpoint);
  }

  /** Does `task` and returns the final answer text. `tools` replaces the agent's own tools for this task. */
  async executeTask(task: AgentTask, context?: string, tools?: BaseTool[]): Promise<string> {
    const result = await this.executeTaskDetailed(task, context, tools);
    return result.output;
  }

  /**
   * Like executeTask, with the executor's full result (usage, history). Used by Task and Crew.
   * `usage`, when given, also receives every token this call spends (knowledge, reasoning, the loop).
   */
  executeTaskDetailed(task: AgentTask, context?: string, tools?: BaseTool[], source: CallSource = {}, usage?: UsageMetrics, loop?: AgentLoopControl): Promise<ExecutorResult> {
    // Nothing to show or connect: straight to the run (one async frame less per run in flight).
    if (!this.verbose && !this.crewMcp && !this.options.mcps?.length) return this.runTask(task, context, tools, source, usage, undefined, loop);
    return this.executeTaskShown(task, context, tools, source, usage, loop);
  }

  private async executeTaskShown(
    task: AgentTask,
    context: string | undefined,
    tools: BaseTool[] | undefined,
    source: CallSource,
    usage: UsageMetrics | undefined,
    loop: AgentLoopControl | undefined,
  ): Promise<ExecutorResult> {
    // A verbose agent shows its own run, unless a verbose crew already shows it.
    const release = this.verbose ? VerbosePrinter.acquire({ key: this.id, match: (s) => s.agentId === this.id, unlessCovered: { ...source, agentId: this.id } }) : undefined;
    // Outside a crew's kickoff the agent's MCP connections last for this one execution.
    const ownMcp = !this.crewMcp && this.options.mcps?.length ? new MCPSession() : undefined;
    try {
      return await this.runTask(task, context, tools, source, usage, ownMcp ?? this.crewMcp, loop);
    } finally {
      await ownMcp?.close();
      await release?.();
    }
  }

  // Not an async function on the usual path: a run in flight holds the callbacks of one `then`, not a
  // suspended call. MCP tools and task context (knowledge, memory) are awaited first in runTaskPrepared.
  private runTask(task: AgentTask, context: string | undefined, tools: BaseTool[] | undefined, source: CallSource, callUsage?: UsageMetrics, mcp?: MCPSession, loop: AgentLoopControl = PLAIN_LOOP): Promise<ExecutorResult> {
    try {
      // A loop resumed from a checkpoint or a pause already has its prompt in its messages.
      const resumed = loop.state ?? currentRun()?.humanAnswer?.takeRun(agentRunKey(this.role, task.description));
      if ((mcp && this.options.mcps) || (!resumed && hasTaskContext(this))) return this.runTaskPrepared(task, context, tools, source, callUsage, mcp, loop, resumed);
      const run: TaskRunAttempts = { task, taskPrompt: buildTaskPrompt(task, context), tools: tools ?? this.tools, source: this.runSource(task, source), callUsage, loop, resumed };
      return this.startAttempts(run);
    } catch (error) {
      return rejectedWith(error);
    }
  }

  private async runTaskPrepared(task: AgentTask, context: string | undefined, tools: BaseTool[] | undefined, source: CallSource, callUsage: UsageMetrics | undefined, mcp: MCPSession | undefined, loop: AgentLoopControl, resumed: AgentRunState | undefined): Promise<ExecutorResult> {
    const fullSource = this.runSource(task, source);
    // As CrewAI: the tools of the agent's MCP servers come on top of the task's (or the agent's) tools.
    const activeTools = mcp && this.options.mcps ? [...(tools ?? this.tools), ...(await mcp.toolsFor(this.options.mcps, this, tools ?? this.tools, fullSource))] : (tools ?? this.tools);
    let taskPrompt = buildTaskPrompt(task, context);
    if (!resumed && hasTaskContext(this)) taskPrompt = await addTaskContext(this, task, taskPrompt, activeTools, fullSource, (spent) => this.countUsage(spent, callUsage));
    return this.startAttempts({ task, taskPrompt, tools: activeTools, source: fullSource, callUsage, loop, resumed });
  }

  /** The ids of the agent's events and calls for `task` (the given ones, with the agent's and task's added). */
  private runSource(task: AgentTask, source: CallSource): CallSource {
    // A crew's task passes the ids already complete: it is used as it is.
    if (source.agentId === this.id && source.agentRole === this.role && source.taskId === task.id && source.taskName === task.name) return source;
    const fullSource: CallSource = Object.assign({ agentId: this.id, agentRole: this.role }, source);
    if (task.id !== undefined) fullSource.taskId = task.id;
    if (task.name !== undefined) fullSource.taskName = task.name;
    return fullSource;
  }

  private startAttempts(run: TaskRunAttempts): Promise<ExecutorResult> {
    if (eventBus.hasListeners("agent_execution_started")) {
      const { source, taskPrompt, task, tools } = run;
      eventBus.emit("agent_execution_started", Object.assign({}, source, { agentId: this.id, agentRole: this.role, taskPrompt, taskDescription: task.description, tools: tools.map((t) => t.name) }));
    }
    return this.attempt(run, 0);
  }

  /** One run of the loop; a retryable failure runs it again, up to maxRetryLimit times. */
  private attempt(run: TaskRunAttempts, attempt: number): Promise<ExecutorResult> {
    const { loop, resumed } = run;
    let running: Promise<ExecutorResult>;
    try {
      const control = attempt === 0 && resumed && loop.state !== resumed ? { ...loop, state: resumed } : loop;
      running = this.runLoop(run.taskPrompt, run.tools, run.source, control, run.task.description);
    } catch (error) {
      running = rejectedWith(error);
    }
    return running.then(
      (result) => {
        this.countUsage(result.usage, run.callUsage);
        if (eventBus.hasListeners("agent_execution_completed")) {
          eventBus.emit("agent_execution_completed", Object.assign({}, run.source, { agentId: this.id, agentRole: this.role, output: result.output }));
        }
        return result;
      },
      (error: unknown) => {
        if (isRetryableRunError(error) && attempt < this.maxRetryLimit) return this.attempt(run, attempt + 1);
        if (eventBus.hasListeners("agent_execution_error")) {
          eventBus.emit("agent_execution_error", { ...run.source, agentId: this.id, agentRole: this.role, error: errorMessage(error) });
        }
        throw error;
      },
    );
  }

  /** Adds tokens spent to the agent's usage and to the call's own (`callUsage`), when given. */
  private countUsage(spent: UsageMetrics, callUsage: UsageMetrics | undefined): void {
    addToUsageMetrics(this.usageMetrics, spent);
    if (callUsage) addToUsageMetrics(callUsage, spent);
  }

  /**
   * Runs the agent on its own, without a task or crew. With `outputSchema`, the answer is parsed into
   * it; `signal` cancels the run (KickoffAbortedError); `stream: true` resolves to a StreamingOutput.
   */
  async kickoff<S extends z.ZodType = z.ZodType>(
    messages: string | ChatMessage[],
    options: AgentKickoffOptions<S> & { stream: true },
  ): Promise<StreamingOutput<AgentOutput<z.infer<S>>>>;
  async kickoff<S extends z.ZodType = z.ZodType>(messages: string | ChatMessage[], options?: AgentKickoffOptions<S>): Promise<AgentOutput<z.infer<S>>>;
  async kickoff<S extends z.ZodType = z.ZodType>(
    messages: string | ChatMessage[],
    options: AgentKickoffOptions<S> = {},
  ): Promise<AgentOutput<z.infer<S>> | StreamingOutput<AgentOutput<z.infer<S>>>> {
    if (options.stream) return streamKickoff(options, (signal) => this.kickoff(messages, { ...options, stream: false, signal }));
    return runKickoff(`Agent "${this.role}" kickoff`, options, {}, () => kickoffAgent(this, messages, options));
  }

  /** Continues a kickoff that rejected with HumanInputPending: `answer` goes to the tool approval it paused on. */
  resume(checkpointId: string, answer: string, options: KickoffOptions = {}): Promise<AgentOutput> {
    return resumePausedAgent(checkpointId, answer, this.checkpointConfig, () => this.kickoff("", { ...options, stream: false, fromCheckpoint: checkpointId }));
  }

  /** Copies an agent checkpoint into a new lineage (as Crew.fork); resume it with `agent.kickoff("", { fromCheckpoint: fork.id })`. */
  static fork(checkpointId: string, options: ForkOptions = {}): Promise<Checkpoint> {
    return forkCheckpoint(checkpointId, "agent", options);
  }

  /** The crew's memory for this agent's tasks, unless the agent opted out with memory: false. */
  private memoryForTask(): KickoffMemory | undefined {
    return this.options.memory === false ? undefined : this.crewMemory;
  }

  /** The agent's own knowledge, when it has knowledgeSources. */
  knowledgeBase(): Knowledge | undefined {
    return this.ownKnowledge();
  }

  /** The agent's knowledge, made on first use (collection named after its role) with its embedder or its crew's. */
  private ownKnowledge(): Knowledge | undefined {
    const sources = this.options.knowledgeSources;
    if (this.knowledge || !sources || sources.length === 0) return this.knowledge;
    const embedder = this.embedder ?? this.crewEmbedder;
    this.knowledge = new Knowledge({ collectionName: this.options.role, sources, owner: "agent", ...(embedder ? { embedder } : {}) });
    return this.knowledge;
  }

  /** A copy with the same options (original, uninterpolated texts), the same LLM and tools, and fresh state. */
  copy(): Agent {
    // A subclass copies as itself (its constructor takes the same options).
    const Ctor = this.constructor as new (options: AgentOptions) => Agent;
    const options: AgentOptions = { ...this.options, llm: this.llm, tools: [...this.tools], ...(this.functionCallingLLM ? { functionCallingLLM: this.functionCallingLLM } : {}) };
    const copied = withTrustedConstruction(() => new Ctor(options));
    // Settings changed since construction (a manager allowed to delegate, maxIter set by hand) carry over.
    copied.maxIter = this.maxIter;
    copied.maxRetryLimit = this.maxRetryLimit;
    copied.allowDelegation = this.allowDelegation;
    copied.verbose = this.verbose;
    copied.cache = this.cache;
    copied.respectContextWindow = this.respectContextWindow;
    if (this.maxExecutionTime !== undefined) copied.maxExecutionTime = this.maxExecutionTime;
    copied.role = this.role;
    copied.goal = this.goal;
    copied.backstory = this.backstory;
    if (this.trainedInstructions !== undefined) copied.trainedInstructions = this.trainedInstructions;
    if (this.crewEmbedder) copied.crewEmbedder = this.crewEmbedder;
    // Indexed once: copies search the same knowledge.
    const knowledge = this.ownKnowledge();
    if (knowledge) copied.knowledge = knowledge;
    return copied;
  }

  /**
   * The agent one run works with: a copy with the same id (events, verbose output and memory still
   * name this agent), so a crew's concurrent kickoffs never share an agent's per-kickoff state.
   * Fold its usage back with `absorbRun`.
   */
  copyForRun(): Agent {
    // A subclass may hold state a shallow clone would miss (#private fields): it is copied as a whole.
    if (Object.getPrototypeOf(this) !== Agent.prototype) {
      const copied = this.copy();
      (copied as { id: string }).id = this.id;
      // maxRpm holds for the agent across all its runs.
      if (this.rpmLimiter) copied.rpmLimiter = this.rpmLimiter;
      return copied;
    }
    // A run changes only its texts, its usage and what its crew lends it, so a shallow clone is enough
    // (no options checked or LLM resolved again): it shares the options, LLM, limiter and knowledge,
    // and starts with its own usage and nothing lent.
    const copied = shallowClone<Agent>(this);
    (copied as { usageMetrics: UsageMetrics }).usageMetrics = emptyUsageMetrics();
    copied.tools = [...this.tools];
    copied.toolsCache = undefined;
    copied.crewRpmLimiter = undefined;
    copied.crewStepCallback = undefined;
    copied.crewKnowledge = undefined;
    copied.crewMemory = undefined;
    copied.crewMcp = undefined;
    return copied;
  }

  /** Takes in what a run copy (see copyForRun) did: its tokens, and its texts as that run filled them in. */
  absorbRun(run: Agent): void {
    addToUsageMetrics(this.usageMetrics, run.usageMetrics);
    this.role = run.role;
    this.goal = run.goal;
    this.backstory = run.backstory;
  }

  /** Replaces `{placeholders}` in role, goal and backstory from the original texts. */
  interpolateInputs(inputs: Record<string, unknown>, interpolate: (text: string, inputs: Record<string, unknown>) => string): void {
    if (Object.keys(inputs).length === 0) {
      // No inputs: the texts as written, placeholders left alone (as CrewAI).
      this.role = this.options.role;
      this.goal = this.options.goal;
      this.backstory = this.options.backstory;
      return;
    }
    this.role = interpolate(this.options.role, inputs);
    this.goal = interpolate(this.options.goal, inputs);
    this.backstory = interpolate(this.options.backstory, inputs);
  }

  private runLoop(taskPrompt: string, tools: BaseTool[], source: CallSource, loop: AgentLoopControl, taskDescription: string): Promise<ExecutorResult> {
    const toolLLM = tools.length > 0 && this.functionCallingLLM ? this.functionCallingLLM : this.llm;
    const nativeTools = tools.length > 0 && (this.options.nativeToolCalling ?? true) && toolLLM.supportsFunctionCalling();
    const { messages, stop } = buildMessages(this, taskPrompt, tools, nativeTools);
    // Not `{ ...cacheOption, source }`: that spread makes a slow dictionary-mode object on Node 20.
    const runnerOptions: ToolRunnerOptions = this.cache && this.toolsCache ? { cache: this.toolsCache, source } : { source };
    const runner = withTrustedConstruction(() => new ToolRunner(tools, runnerOptions));
    const controller = this.maxExecutionTime ? new AbortController() : undefined;
    const signal = eitherSignal(controller?.signal, currentRun()?.signal);
    const stepCallback = withObservationMemory(this.options.stepCallback ?? this.crewStepCallback, this.memoryForTask(), source);
    const onProgress = loop.onProgress;
    // Only a human input provider pauses a run; a checkpointed loop keeps its state anyway.
    const mayPause = onProgress !== undefined || hasHumanInputProvider();
    // Set one by one rather than spread in: each run in flight builds one.
    const config: ExecutorConfig = { llm: toolLLM, messages, runner, nativeTools, maxIter: this.maxIter, stop, respectContextWindow: this.respectContextWindow, source };
    if (signal) config.signal = signal;
    if (this.rpmLimiter || this.crewRpmLimiter) config.rpm = [this.rpmLimiter, this.crewRpmLimiter].filter((l): l is RequestLimiter => l !== undefined);
    if (stepCallback) config.stepCallback = stepCallback;
    if (this.options.stream) config.stream = true;
    if (loop.state) config.resume = loop.state;
    if (onProgress) config.onProgress = (event: string) => onProgress(event, executor.state());
    if (mayPause) config.trackReply = true;
    const executor: AgentExecutor = new AgentExecutor(config);
    // A pause for a human keeps where this loop stood, so resuming it asks the model nothing twice.
    const run = mayPause
      ? executor.run().catch((error: unknown) => {
          if (error instanceof HumanInputPending) recordPausedRun(error, agentRunKey(this.role, taskDescription), executor.state());
          throw error;
        })
      : executor.run();
    return controller ? withTimeout(run, controller, this.maxExecutionTime!) : run;
  }
}

/** What the attempts of one task execution share. */
interface TaskRunAttempts {
  task: AgentTask;
  taskPrompt: string;
  tools: BaseTool[];
  source: CallSource;
  callUsage: UsageMetrics | undefined;
  loop: AgentLoopControl;
  resumed: AgentRunState | undefined;
}
