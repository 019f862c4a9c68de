import { rejectedWith } from "../llm/retry.js";
import { randomUUID } from "node:crypto";
import { isTrustedConstruction, withTrustedConstruction } from "../tools/trustedConstruction.js";
import type { Agent } from "../agent/Agent.js";
import type { RequestLimiter } from "../agent/requestLimiters.js";
import { eventBus } from "../events/EventBus.js";
import { newId } from "../events/newId.js";
import type { Embedder } from "../knowledge/embedders/Embedder.js";
import { resolveEmbedder } from "../knowledge/embedders/resolveEmbedder.js";
import { Knowledge, type KnowledgeConfig, type KnowledgeResult } from "../knowledge/Knowledge.js";
import { hideSecrets } from "../llm/hideSecrets.js";
import { emptyUsageMetrics, type UsageMetrics } from "../llm/UsageMetrics.js";
import { defaultTaskOutputStore } from "../stores/defaultStores.js";
import type { TaskOutputStore } from "../storage/TaskOutputStore.js";
import type { Task, TaskOutput } from "../task/index.js";
import { InMemoryToolCache } from "../tools/ToolCache.js";
import type { CrewOutput } from "./CrewOutput.js";
import type { CrewOptions, ForEachOptions, KickoffInputs } from "./CrewOptions.js";
import { CrewReplayError } from "./errors.js";
import { resetCrewMemories, type MemoryKind } from "./memoryReset.js";
import { createMemorySet, sharedMemoryOptions, startKickoffMemory } from "./crewMemory.js";
import { runCrewTasks, type CrewTaskRun } from "./CrewTaskHooks.js";
import type { MemorySet } from "../memory/MemorySet.js";
import { testCrew, type CrewTestResult, type TestCrewOptions } from "./evaluation.js";
import { createManagerAgent } from "./HierarchicalProcess.js";
import { hasBeforeKickoffHooks, kickoffInputs, runBeforeKickoff } from "./kickoffHooks.js";
import { KickoffScope } from "./KickoffScope.js";
import { completeKickoff, failKickoff, type KickoffRun } from "./kickoffEnd.js";
import { participantsOf, RunMembers } from "./RunMembers.js";
import { kickoffEach } from "./kickoffEach.js";
import { applyPlans, planTasks } from "./planning.js";
import { Process } from "./Process.js";
import { DISCARDED_OUTPUTS, ReplayRecorder, type KickoffCount } from "./replay.js";
import { prepareStoredRun, type RunMode, type StoredRun } from "./storedRun.js";
import type { ExecuteTasksOptions } from "./SequentialProcess.js";
import { TaskLogFile } from "./TaskLogFile.js";
import { TrainedDataCache, trainCrew, type TrainCrewOptions, type TrainingResult } from "./training.js";
import { checkCrewOptions, validateCrew } from "./validation.js";
import { closeCrewStores, crewRequestLimiter, showKickoff } from "./crewResources.js";
import { copiedCrewOptions } from "./copyMembers.js";
import { currentRun, runKickoff, streamKickoff, type KickoffOptions, type StreamingOutput } from "../runtime/index.js";
import { CREW_CHECKPOINT_EVENTS, CrewRunCheckpoints } from "./crewCheckpoints.js";
import { checkpointConfigOf } from "../runtime/checkpoint/CheckpointRecorder.js";
import { kickoffCheckpointConfig, resumePausedCrew } from "./crewPause.js";
import type { Checkpoint, CheckpointConfig } from "../runtime/checkpoint/types.js";
import { forkCheckpoint, type ForkOptions } from "../runtime/checkpoint/forkCheckpoint.js";
import { claimHostCheckpoints } from "../runtime/checkpoint/hostCheckpoints.js";
import { waitForTurn } from "../runtime/turnPacing.js";

// A plain kickoff's mode and task options: shared, never changed (a run that needs others makes its own).
const PLAIN_RUN: RunMode = Object.freeze({});
const ALL_TASKS: ExecuteTasksOptions = Object.freeze({});

/**
 * A group of agents working through tasks together, in order or under a manager (CrewAI's Crew).
 * `T` is what the last task's outputSchema parses into, inferred from the tasks given (unknown without one).
 * `Streams` is true for a crew made with `stream: true`, whose every kickoff resolves to a StreamingOutput.
 */
export class Crew<T = unknown, Streams extends boolean = false> {
  readonly id: string = randomUUID();
  readonly name: string;
  readonly agents: Agent[];
  readonly tasks: Task[];
  readonly process: Process;
  /** The options as given. */
  readonly options: Readonly<CrewOptions>;
  /** Tokens used by the last kickoff (by all of kickoffForEach's runs, summed). */
  usageMetrics: UsageMetrics = emptyUsageMetrics();
  /** The manager of a hierarchical crew, once the first kickoff has created it. */
  manager?: Agent;
  /** Embeds the crew's knowledge and, for agents without their own, theirs. */
  readonly embedder?: Embedder;
  // The crew's knowledge, indexed on first use and shared with kickoffForEach's copies.
  private knowledge: Knowledge | undefined;
  // The crew's memories (none unless enabled), shared with kickoffForEach's copies.
  private readonly memories: MemorySet;
  // Shared by the copies kickoffForEach runs, so maxRpm holds for the whole batch.
  private rpmLimiter: RequestLimiter | undefined;
  // The outputs of the latest kickoff, for replay (the copies kickoffForEach makes keep theirs in memory).
  private taskOutputStore: TaskOutputStore;
  // What `crew.train` saved, read on the first kickoff (and shared with kickoffForEach's copies).
  private trainedData: TrainedDataCache;
  // A copy kickoffForEach runs once works on its own agents and tasks, with no further copies.
  private runsInPlace = false;
  // The kickoffs started so far: the one that started last is the one whose task outputs are kept for replay.
  private readonly kickoffs: KickoffCount = { started: 0 };
  private readonly logFile: TaskLogFile | undefined;
  /** Where and when kickoffs write checkpoints (undefined: they write none). */
  readonly checkpointConfig: CheckpointConfig | undefined;

  constructor(options: Omit<CrewOptions, "tasks" | "stream"> & { tasks: [...Task[], Task & { output?: TaskOutput<T> }]; stream?: Streams });
  constructor(options: CrewOptions);
  constructor(options: CrewOptions) {
    // Copies of a valid crew skip validation (kickoffForEach makes one per input).
    const trusted = isTrustedConstruction();
    if (!trusted) checkCrewOptions(options);
    // Kept as given, but embedder and Mem0 keys in them must not show when the crew is logged or serialized.
    this.options = hideSecrets(options);
    this.name = options.name ?? "crew";
    this.agents = [...options.agents];
    this.tasks = [...options.tasks];
    this.process = options.process ?? Process.sequential;
    if (!trusted) validateCrew({ agents: this.agents, tasks: this.tasks, process: this.process, managerLLM: options.managerLLM, managerAgent: options.managerAgent });
    // llmRateLimit is held across every crew of this name (across workers too, under crewts worker); maxRpm per crew.
    this.rpmLimiter = crewRequestLimiter(this.name, options);
    this.logFile = options.outputLogFile ? new TaskLogFile(options.outputLogFile) : undefined;
    this.checkpointConfig = checkpointConfigOf(options.checkpoint);
    this.taskOutputStore = options.taskOutputStore ?? defaultTaskOutputStore(this.name);
    if (options.embedder !== undefined) {
      this.embedder = resolveEmbedder(options.embedder);
      for (const agent of this.participants()) agent.crewEmbedder ??= this.embedder;
    }
    this.memories = createMemorySet(options, this.embedder);
    this.trainedData = new TrainedDataCache(options.trainedAgentsFile);
  }

  /**
   * Runs the crew: before-kickoff hooks, inputs filled into tasks and agents, the process, then the
   * after-kickoff hooks. Tools are cached across agents for this kickoff only. Emits
   * crew_kickoff_started, then crew_kickoff_completed or crew_kickoff_failed (and rethrows).
   * `signal` cancels it (KickoffAbortedError); `stream: true` (or the crew's `stream` option) resolves
   * to a StreamingOutput whose `result` is the CrewOutput.
   */
  kickoff(inputs: KickoffInputs | undefined, options: KickoffOptions & { stream: true }): Promise<StreamingOutput<CrewOutput<T>>>;
  kickoff(inputs: KickoffInputs | undefined, options: KickoffOptions & { stream: false }): Promise<CrewOutput<T>>;
  kickoff(inputs?: KickoffInputs, options?: KickoffOptions): Promise<Streams extends true ? StreamingOutput<CrewOutput<T>> : CrewOutput<T>>;
  kickoff(inputs?: KickoffInputs, options: KickoffOptions = {}): Promise<CrewOutput<T> | StreamingOutput<CrewOutput<T>>> {
    if (options.stream ?? this.options.stream) return Promise.resolve(streamKickoff(options, (signal) => this.kickoff(inputs, { ...options, signal, stream: false })));
    // Thousands started in one loop start a few hundred per turn of the event loop (see waitForTurn);
    // one waiting holds a callback, not a suspended call.
    const turn = waitForTurn();
    return turn ? turn.then(() => this.kickoffNow(inputs, options)) : this.kickoffNow(inputs, options);
  }

  // Not an async function: a kickoff's promise is the run's own, with no extra one resolved from it.
  private kickoffNow(inputs: KickoffInputs | undefined, options: KickoffOptions): Promise<CrewOutput<T>> {
    try {
      // Run again inside a flow resumed from this crew's pause: continue from the pause with the answer.
      const paused = options.fromCheckpoint === undefined ? currentRun()?.pausedCrew?.take(this.name) : undefined;
      if (paused) return this.resume(paused.checkpointId, paused.answer, options) as Promise<CrewOutput<T>>;
      const hooks = this.options.hooks;
      const mode = options.fromCheckpoint !== undefined ? { fromCheckpoint: options.fromCheckpoint } : PLAIN_RUN;
      return runKickoff(`Crew '${this.name}' kickoff`, options, hooks ? { tasks: this.tasks, hooks } : { tasks: this.tasks }, () => this.run(inputs, ALL_TASKS, mode) as Promise<CrewOutput<T>>);
    } catch (error) {
      return rejectedWith(error);
    }
  }

  /**
   * Runs a copy of the crew per inputs, at most `concurrency` at a time (default 1, one after the
   * other); outputs in input order, `usageMetrics` summed over the runs. As in CrewAI, no kickoff is
   * left to replay afterwards.
   */
  kickoffForEach(inputsList: KickoffInputs[], options: ForEachOptions & { stream: true }): Promise<StreamingOutput<CrewOutput<T>[]>>;
  kickoffForEach(inputsList: KickoffInputs[], options?: ForEachOptions): Promise<CrewOutput<T>[]>;
  async kickoffForEach(inputsList: KickoffInputs[], options: ForEachOptions = {}): Promise<CrewOutput<T>[] | StreamingOutput<CrewOutput<T>[]>> {
    if (options.stream ?? this.options.stream) return streamKickoff(options, (signal) => this.kickoffForEach(inputsList, { ...options, signal, stream: false }));
    const outputs = await kickoffEach(this, inputsList, options, () => this.batchCopy());
    // As CrewAI: a batch leaves no kickoff to replay.
    try {
      await new ReplayRecorder(this.taskOutputStore).reset();
    } finally {
      await this.taskOutputStore.close();
    }
    return outputs;
  }

  /** A copy of the crew for one run of kickoffForEach, sharing the crew's limiter, trained data and knowledge. */
  private batchCopy(): Crew<T> {
    const copy = this.copy();
    copy.rpmLimiter = this.rpmLimiter;
    copy.trainedData = this.trainedData;
    // A batch leaves nothing to replay (the crew's store is emptied after it), so its runs keep no log.
    copy.taskOutputStore = DISCARDED_OUTPUTS;
    copy.knowledge = this.crewKnowledge();
    copy.runsInPlace = true;
    return copy;
  }

  /** Continues a kickoff that rejected with HumanInputPending: `answer` goes to the task review or tool approval it paused on. */
  resume(checkpointId: string, answer: string, options: KickoffOptions = {}): Promise<CrewOutput> {
    return resumePausedCrew(checkpointId, answer, this.checkpointConfig, () => this.kickoff(undefined, { ...options, stream: false, fromCheckpoint: checkpointId }));
  }

  /** Copies a crew checkpoint into a new lineage (CrewAI's fork); resume it with `kickoff(inputs, { fromCheckpoint: fork.id })`. */
  static fork(checkpointId: string, options: ForkOptions = {}): Promise<Checkpoint> {
    return forkCheckpoint(checkpointId, "crew", options);
  }

  /** A new crew with copies of the agents and tasks (context pointing at the copied tasks) and the same options. */
  copy(): Crew<T> {
    return withTrustedConstruction(() => this.copyTrusted());
  }

  private copyTrusted(): Crew<T> {
    return new Crew<T>({ ...copiedCrewOptions(this.options, this.agents, this.tasks), ...sharedMemoryOptions(this.memories) });
  }

  /** Trains a copy of the crew on human feedback and saves what each agent learned to `filename` (see trainCrew). */
  async train(options: TrainCrewOptions): Promise<TrainingResult> {
    try {
      return await trainCrew(this, options);
    } finally {
      this.trainedData.forget();
    }
  }

  /** Runs a copy of the crew `iterations` times and has `evalLLM` score every task output (see testCrew). */
  test(options: TestCrewOptions): Promise<CrewTestResult> {
    return testCrew(this, options);
  }

  /**
   * Clears a kind of memory. "kickoff_outputs" and "all" clear what is stored of past kickoffs; any
   * memory this crew does not have is an error, as in CrewAI.
   */
  async resetMemories(kind: MemoryKind): Promise<void> {
    await resetCrewMemories(kind, {
      crewName: this.name,
      taskOutputs: this.taskOutputStore,
      ...this.memories,
      knowledge: this.crewKnowledge(),
      agentKnowledge: this.participants().flatMap((agent) => agent.knowledgeBase() ?? []),
    });
  }

  /**
   * Releases at once what the crew holds open: its task output store, memories and knowledge (storage
   * handles are pooled and also close by themselves when idle). The crew stays usable: a later
   * kickoff opens what it needs again.
   */
  close(): Promise<void> {
    return closeCrewStores(this.name, { taskOutputStore: this.taskOutputStore, memories: this.memories, knowledge: this.knowledge, agents: this.participants() });
  }

  /**
   * Searches the crew's knowledge with each query and returns the best snippets (merged, best first).
   * Without knowledgeSources there is nothing to search: an empty list.
   */
  async queryKnowledge(queries: readonly string[], config: KnowledgeConfig = {}): Promise<KnowledgeResult[]> {
    if (!Array.isArray(queries) || queries.some((q) => typeof q !== "string")) {
      throw new TypeError('queryKnowledge takes a list of query strings, e.g. crew.queryKnowledge(["refund policy"]).');
    }
    const knowledge = this.crewKnowledge();
    return knowledge ? knowledge.query(queries, config, { crewId: this.id }) : [];
  }

  /** The crew's knowledge (collection named after the crew), made on first use and shared with its copies. */
  private crewKnowledge(): Knowledge | undefined {
    const sources = this.options.knowledgeSources;
    if (this.knowledge || !sources || sources.length === 0) return this.knowledge;
    this.knowledge = new Knowledge({ collectionName: this.name, sources, owner: "crew", ...(this.embedder ? { embedder: this.embedder } : {}) });
    return this.knowledge;
  }

  /**
   * Runs the crew again from the task `taskId` of the latest kickoff (CrewAI's replay): earlier tasks
   * keep the outputs stored then, which later tasks read as context. The inputs are those of that
   * kickoff, used as stored, unless new ones are given (they go through the before-kickoff hooks).
   */
  async replay(taskId: string, inputs?: KickoffInputs): Promise<CrewOutput<T>> {
    if (this.process === Process.hierarchical) {
      throw new CrewReplayError(
        "Replay is not supported for hierarchical process: the manager decides who does each task, so earlier steps cannot be restored. Run kickoff() again instead.",
      );
    }
    return (await this.run(inputs, {}, { replayTaskId: taskId, beforeKickoff: inputs !== undefined })) as CrewOutput<T>;
  }

  /** One kickoff; `execute` and `mode` let replay start part-way (see ExecuteTasksOptions). */
  private run(inputs: KickoffInputs | undefined, execute: ExecuteTasksOptions = ALL_TASKS, mode: RunMode = PLAIN_RUN): Promise<CrewOutput> {
    // This kickoff's own copies of the agents and tasks (kickoffForEach's crew copies are already its own).
    const members = new RunMembers(this.agents, this.tasks, this.runsInPlace);
    // A host (crewts serve or worker) may ask for checkpoints in a lineage of its own.
    const host = claimHostCheckpoints();
    if (host) mode = { ...mode, host };
    // A plain kickoff goes straight on (one async frame less for each of many kickoffs in flight).
    if (mode.replayTaskId === undefined && mode.fromCheckpoint === undefined) return this.runMembers(members, inputs, execute, mode);
    return this.runStoredMembers(members, inputs, execute, mode);
  }

  /** A replay or a resumed kickoff: what was stored is loaded first (see prepareStoredRun). */
  private async runStoredMembers(members: RunMembers, inputs: KickoffInputs | undefined, execute: ExecuteTasksOptions, mode: RunMode): Promise<CrewOutput> {
    let start: StoredRun;
    try {
      start = await prepareStoredRun(members, inputs, execute, mode, { store: this.taskOutputStore, checkpointConfig: this.checkpointConfig, crewName: this.name });
    } catch (error) {
      members.absorb();
      throw error;
    }
    return this.runMembers(members, start.inputs, start.execute, start.mode);
  }

  /**
   * Runs the kickoff on `members`; they give back what they did once it ends, however it ends. Not an
   * async function: while its tasks wait on their models, a kickoff holds its KickoffRun and one `then`.
   */
  private runMembers(members: RunMembers, inputs: KickoffInputs | undefined, execute: ExecuteTasksOptions, mode: RunMode): Promise<CrewOutput> {
    const memory = startKickoffMemory(this.memories, this.options.memoryConfig);
    const cache = this.options.cache !== false ? new InMemoryToolCache() : undefined;
    const scope = new KickoffScope({ memory, cache, knowledge: this.crewKnowledge(), rpmLimiter: this.rpmLimiter, stepCallback: this.options.stepCallback });
    const source = { crewId: this.id, crewName: this.name, kickoffId: newId() };
    // verbose: the live account of this kickoff, also written to the output log file when there is one.
    const releaseVerbose = this.options.verbose ? showKickoff(this.id, () => [...members.participants(), ...(this.manager ? [this.manager] : [])], this.logFile) : undefined;
    const run: KickoffRun = { members, memory, scope, source, releaseVerbose, checkpoints: undefined };
    let started: Promise<TaskOutput[]>;
    try {
      started = this.startTasks(run, inputs, execute, mode);
    } catch (error) {
      started = rejectedWith(error);
    }
    return started.then(
      (outputs) => completeKickoff(this, run, outputs),
      (error: unknown) => failKickoff(this, run, error),
    );
  }

  /**
   * A kickoff up to its tasks: hooks, inputs, trained data, planning, the replay log and checkpoints.
   * Without hooks, planning or trained data still being read, nothing before the replay log's reset
   * waits, and no async call is made for it.
   */
  private startTasks(run: KickoffRun, inputs: KickoffInputs | undefined, execute: ExecuteTasksOptions, mode: RunMode): Promise<TaskOutput[]> {
    const hooked = mode.beforeKickoff !== false && hasBeforeKickoffHooks(this.options.beforeKickoff);
    if (hooked || this.options.planning || !this.trainedData.known()) return this.startTasksWaiting(run, inputs, execute, mode, hooked);
    const finalInputs = mode.beforeKickoff === false ? inputs : kickoffInputs(inputs);
    this.fillMembers(run, finalInputs);
    this.trainedData.applyKnown(run.members);
    for (const agent of run.members.participants()) run.scope.enlist(agent);
    return this.resetThenRun(run, finalInputs, execute, mode);
  }

  private async startTasksWaiting(run: KickoffRun, inputs: KickoffInputs | undefined, execute: ExecuteTasksOptions, mode: RunMode, hooked: boolean): Promise<TaskOutput[]> {
    const { members, scope, source } = run;
    let finalInputs = inputs;
    if (mode.beforeKickoff !== false) finalInputs = hooked ? await runBeforeKickoff(this.options.beforeKickoff, inputs, this.name) : kickoffInputs(inputs);
    this.fillMembers(run, finalInputs);
    await this.trainedData.apply(members);
    for (const agent of members.participants()) scope.enlist(agent);
    if (this.options.planning) {
      const { plans, usage } = await planTasks(members.tasks, members.agents, { ...(this.options.planningLLM !== undefined ? { llm: this.options.planningLLM } : {}), source });
      applyPlans(members.tasks, plans);
      scope.addUsage(usage);
    }
    return this.resetThenRun(run, finalInputs, execute, mode);
  }

  /** Announces the kickoff and fills its inputs into the run's tasks and agents. */
  private fillMembers(run: KickoffRun, finalInputs: KickoffInputs | undefined): void {
    if (eventBus.hasListeners("crew_kickoff_started")) eventBus.emit("crew_kickoff_started", { ...run.source, inputs: finalInputs ?? {} });
    run.members.interpolate(finalInputs ?? {});
  }

  /** Resets the replay log (awaited: a reset still writing while the first tasks run slows their own storage down), then runs the tasks. */
  private resetThenRun(run: KickoffRun, finalInputs: KickoffInputs | undefined, execute: ExecuteTasksOptions, mode: RunMode): Promise<TaskOutput[]> {
    const replaying = mode.replayTaskId !== undefined;
    // Concurrent kickoffs: the store keeps the kickoff that started last.
    const replayLog = new ReplayRecorder(this.taskOutputStore, ++this.kickoffs.started, this.kickoffs);
    if (replaying) return this.runTasks(run, finalInputs, execute, mode, replayLog, replaying);
    return replayLog.reset().then(() => this.runTasks(run, finalInputs, execute, mode, replayLog, replaying));
  }

  private runTasks(run: KickoffRun, finalInputs: KickoffInputs | undefined, execute: ExecuteTasksOptions, mode: RunMode, replayLog: ReplayRecorder, replaying: boolean): Promise<TaskOutput[]> {
    const { members, scope, source, memory } = run;
    const host = mode.host;
    // The crew's own setting wins; a served kickoff's host settings come next; a pause-capable or resumed run gets the defaults.
    const config = kickoffCheckpointConfig(this.checkpointConfig ?? host?.config, mode.resume !== undefined);
    if (mode.resume) scope.addUsage(mode.resume.checkpoint.usage);
    const lineage = host && { lineage: host.lineage, branch: "main" };
    const checkpoints = (run.checkpoints = config ? new CrewRunCheckpoints(config, this, finalInputs ?? {}, () => scope.usage(), mode.resume, lineage) : undefined);
    const taskRun: CrewTaskRun = { crewId: this.id, kickoffId: source.kickoffId, inputs: finalInputs ?? {}, replaying, recorder: replayLog, memory, members, manager: undefined, logFile: this.logFile, taskCallback: this.options.taskCallback };
    // Methods and inline callbacks rather than named closures here: tsx (esbuild's keepNames) gives each
    // named closure its name with a defineProperty call, on every kickoff.
    if (!checkpoints) return this.processTasks(taskRun, scope, execute, undefined);
    return checkpoints.recorder.around(CREW_CHECKPOINT_EVENTS, () => this.processTasks(taskRun, scope, execute, checkpoints));
  }

  private processTasks(taskRun: CrewTaskRun, scope: KickoffScope, execute: ExecuteTasksOptions, checkpoints: CrewRunCheckpoints | undefined): Promise<TaskOutput[]> {
    if (this.process === Process.hierarchical) taskRun.manager = taskRun.members.agent(this.managerAgent());
    return runCrewTasks(taskRun, scope, execute, checkpoints);
  }

  /** The crew's agents and any task agent missing from that list: all of them take part in a kickoff. */
  private participants(): Agent[] {
    return participantsOf(this.agents, this.tasks);
  }

  /** The manager of a hierarchical crew (made on first use); each kickoff works on its own copy of it. */
  private managerAgent(): Agent {
    return (this.manager ??= createManagerAgent(this.options));
  }
}

