import { eventBus } from "../events/index.js";
import { flowDefinition, flowNameOf, type FlowDefinition, type FlowMethodDef } from "./FlowDefinition.js";
import { flowGraph } from "./FlowGraph.js";
import { buildState, copyInitialState, type FlowState, type InitialState, isStateSchema, type StateSchema } from "./flowState.js";
import type { PersistTarget } from "./FlowMethodSpec.js";
import { FlowStateError } from "./errors.js";
import { FlowRun, type FlowRunDurability, type FlowRunHost } from "./FlowRun.js";
import { FLOW_CHECKPOINT_EVENTS, flowCheckpointing, loadFlowResume } from "./flowCheckpoints.js";
import { checkpointConfigOf } from "../runtime/checkpoint/CheckpointRecorder.js";
import { checkpointOptionSchema } from "../runtime/checkpoint/checkpointOption.js";
import { forkCheckpoint, type ForkOptions } from "../runtime/checkpoint/forkCheckpoint.js";
import { claimHostCheckpoints } from "../runtime/checkpoint/hostCheckpoints.js";
import type { Checkpoint, CheckpointConfig, FlowJournalEntry } from "../runtime/checkpoint/types.js";
import { printFlow } from "./flowVerbose.js";
import { plotFlow } from "./plot/plotFlow.js";
import type { FlowPersistence } from "./persistence/FlowPersistence.js";
import { defaultFlowPersistence } from "../stores/defaultStores.js";
import { globalHooks } from "../hooks/registry.js";
import { runGlobalAfterKickoff, runGlobalBeforeKickoff } from "../hooks/runHooks.js";
import { runAborted, runKickoff, streamKickoff, untilRunAborted } from "../runtime/kickoffRun.js";
import type { KickoffOptions } from "../runtime/KickoffOptions.js";
import type { StreamingOutput } from "../runtime/StreamingOutput.js";
import { feedbackHistoryOf, registerFeedbackHost } from "./humanFeedback/host.js";
import { HumanFeedbackPending, type HumanFeedbackResult } from "./humanFeedback/types.js";
import { pauseFlow } from "./humanFeedback/pending.js";
import { withCrewAnswer } from "./humanFeedback/crewPause.js";
import { finishResume, flowPauses, loadResume, prepareResume, takeResumeJournal } from "./humanFeedback/resume.js";

/** Options of a flow instance. */
export interface FlowOptions {
  /** Backend for every persisted method of this instance, and for restoring by `kickoff({ id })`. */
  persistence?: FlowPersistence;
  /** Every kickoff resolves to a StreamingOutput (as `kickoff(inputs, { stream: true })`). */
  stream?: boolean;
  /** Write checkpoints (default after each method) so a kickoff can resume with `{ fromCheckpoint }`; true for the defaults. */
  checkpoint?: boolean | CheckpointConfig;
  /** Print a live account of each kickoff: methods started, finished or failed, router outcomes, timings (also a class field). */
  verbose?: boolean;
}

/** What `kickoff` accepts: state fields to merge, and `id` to resume a persisted flow. */
export type FlowInputs<S> = Partial<S> & { id?: string } & Record<string, unknown>;

/**
 * The base of every flow (CrewAI's `Flow`). Subclasses declare methods with `@start`, `@listen` and
 * `@router`, an optional `initialState` (a plain object or a zod schema) and may raise `maxMethodCalls`.
 * `R` is what `kickoff()` resolves to (the result of the method that finishes last), declared by the subclass.
 */
export abstract class Flow<S extends object = Record<string, unknown>, R = unknown> {
  /** The state a flow begins with: a plain object, or a schema whose defaults fill it and which validates inputs. */
  initialState?: InitialState<S>;
  /** How often one method may run in one kickoff before the run stops (a guard against endless loops). */
  maxMethodCalls = 100;
  /** Every kickoff streams (CrewAI's `stream = True`); set in a subclass or with the `stream` option. */
  stream = false;
  /** Print a live account of each kickoff (methods, router outcomes, timings); off by default. */
  verbose = false;

  #currentState: Record<string, unknown> | undefined;
  // Kickoffs of this instance in progress.
  #running = 0;
  #lastRun: FlowRun | undefined;
  readonly #persistence: FlowPersistence | undefined;
  #defaultPersistence: FlowPersistence | undefined;
  readonly #definition: FlowDefinition;
  readonly #checkpoint: CheckpointConfig | undefined;
  // The constructor's verbose option wins over the class field (which a subclass sets after the constructor ran).
  readonly #verboseOption: boolean | undefined;

  /** Checks the class's decorators (once per class), so a broken flow fails where it is built. */
  constructor(options: FlowOptions = {}) {
    this.#persistence = options.persistence;
    if (options.stream !== undefined) this.stream = options.stream;
    this.#verboseOption = options.verbose;
    this.#definition = flowDefinition(this);
    if (options.checkpoint !== undefined) {
      const parsed = checkpointOptionSchema.safeParse(options.checkpoint);
      if (!parsed.success) throw new TypeError(`Invalid flow checkpoint option: ${parsed.error.issues.map((i) => `${i.path.join(".") || "checkpoint"}: ${i.message}`).join("; ")}.`);
    }
    this.#checkpoint = checkpointConfigOf(options.checkpoint);
    registerFeedbackHost(this, { lessonBackend: () => this.#restoreBackend() });
  }

  /** The most recent `@humanFeedback` result of this flow (CrewAI's `last_human_feedback`). */
  get lastHumanFeedback(): HumanFeedbackResult | undefined {
    return feedbackHistoryOf(this).at(-1);
  }

  /** Every `@humanFeedback` result of this flow, oldest first (CrewAI's `human_feedback_history`). */
  get humanFeedbackHistory(): readonly HumanFeedbackResult[] {
    return feedbackHistoryOf(this);
  }

  /** Rebuilds a flow paused for human feedback (`kickoff` resolved with a HumanFeedbackPending) from its persistence; continue it with `resume(feedback)`. */
  static async fromPending<F extends Flow<object>>(this: new (options?: FlowOptions) => F, flowId: string, options: { persistence?: FlowPersistence } = {}): Promise<F> {
    const flow = new this(options.persistence ? { persistence: options.persistence } : {});
    const base = flow as Flow<object>;
    try {
      const loaded = await loadResume(base, base.#pauseBackend(), flowId);
      await base.#ownState(loaded.state);
    } finally {
      if (base.#running === 0) await base.#defaultPersistence?.close?.();
    }
    return flow;
  }

  /** Answers the pending feedback request of a flow from `fromPending`: maps the feedback, routes it, and runs the flow to its end (or its next pause). */
  async resume(feedback: string, options: KickoffOptions = {}): Promise<unknown> {
    const flowId = await prepareResume(this, feedback);
    return withCrewAnswer(this, () => this.kickoff({ id: flowId } as FlowInputs<S>, options));
  }

  /** The flow state; always has `id`. Built from `initialState` on first access. */
  get state(): FlowState<S> {
    return this.#liveState() as FlowState<S>;
  }

  /** The results of every method of the last kickoff, in completion order. */
  get methodOutputs(): unknown[] {
    return this.#lastRun?.outputs ?? [];
  }

  /**
   * Runs the flow: merges `inputs` into the state (restoring the persisted state first when
   * `inputs.id` is given and the flow persists), runs the start methods and everything they trigger,
   * and resolves with the result of the method that finished last (or, when a feedback provider paused
   * the flow, with its HumanFeedbackPending: `fromPending` and `resume` continue it).
   */
  kickoff(inputs: FlowInputs<S> | undefined, options: KickoffOptions & { stream: true }): Promise<StreamingOutput<R>>;
  kickoff(inputs?: FlowInputs<S>, options?: KickoffOptions): Promise<R>;
  async kickoff(inputs?: FlowInputs<S>, options: KickoffOptions = {}): Promise<R | StreamingOutput<R>> {
    if (options.stream ?? this.stream) return streamKickoff(options, (signal) => this.kickoff(inputs, { ...options, signal, stream: false }));
    return runKickoff(`Flow '${flowNameOf(this, this.#definition)}' kickoff`, options, {}, () => this.#kickoffNow(inputs, options));
  }

  async #kickoffNow(inputs: FlowInputs<S> | undefined, options: KickoffOptions): Promise<R> {
    const def = this.#definition;
    const startedAt = performance.now();
    // A host (crewts serve or worker) may ask for checkpoints in a lineage of its own.
    const host = claimHostCheckpoints();
    const resume = options.fromCheckpoint !== undefined ? await loadFlowResume(options.fromCheckpoint, this.#checkpoint ?? host?.config, flowNameOf(this, def)) : undefined;
    const given = inputs;
    if (resume) inputs = { ...resume.state, ...resume.checkpoint.inputs, ...inputs, id: String(resume.state.id) } as FlowInputs<S>;
    // A kickoff while another runs on this instance gets a state of its own (see runView).
    const alongside = this.#running > 0;
    let releaseVerbose: (() => Promise<void>) | undefined;
    this.#running++;
    try {
      if (globalHooks.beforeKickoff.length > 0) inputs = (await runGlobalBeforeKickoff("flow", flowNameOf(this, def), { ...inputs })) as FlowInputs<S>;
      const state = alongside ? await this.#stateFrom(this.#freshBase(), inputs ?? {}) : await this.#ownState(inputs);
      const instance = alongside ? runView(this, state) : this;
      releaseVerbose = (this.#verboseOption ?? this.verbose) ? printFlow(String(state.id)) : undefined;
      if (eventBus.hasListeners("flow_started")) {
        eventBus.emit("flow_started", { flowName: flowNameOf(this, def), flowId: String(state.id), inputs: { ...inputs } });
      }
      const currentState = alongside ? () => state : () => this.#liveState();
      const config = this.#checkpoint ?? host?.config ?? (resume ? {} : undefined);
      const durable = config
        ? flowCheckpointing(config, { name: flowNameOf(this, def), state: currentState, inputs: { ...(resume?.checkpoint.inputs ?? given) } }, resume, (): FlowRun => run, host && { lineage: host.lineage, branch: "main" })
        : undefined;
      // A persisted run by id that was killed before it finished resumes after its recorded methods.
      const backend = !resume && typeof given?.id === "string" ? this.#restoreBackend() : undefined;
      const progress = backend?.loadProgress ? await backend.loadProgress(given!.id as string) : undefined;
      // Resuming a pause replays the paused run; a flow that may pause keeps a journal of its run.
      const paused = takeResumeJournal(this);
      const replay = paused ?? (progress?.length ? progress : undefined);
      const durability = replay ? { ...durable?.durability, replay } : (durable?.durability ?? (flowPauses(def) ? {} : undefined));
      const run: FlowRun = new FlowRun(this.#runHost(instance, currentState, durability), def, this.maxMethodCalls);
      if (alongside) Object.defineProperty(instance, "methodOutputs", { get: () => run.outputs });
      else this.#lastRun = run;
      const execute = () =>
        untilRunAborted(run.execute()).catch((error: unknown) => {
          if (error instanceof HumanFeedbackPending) return pauseFlow(this.#pauseBackend(), instance, flowNameOf(this, def), currentState(), run.journal, error);
          emitFlowFailed(flowNameOf(this, def), String(state.id), error);
          throw alongside ? explainViewError(error, def.name) : error;
        });
      const finished = durable ? await durable.recorder.around(FLOW_CHECKPOINT_EVENTS, execute) : await execute();
      // A pause resolves the kickoff with the pending request (as CrewAI); callers of a flow with @humanFeedback check `instanceof HumanFeedbackPending`.
      if (finished instanceof HumanFeedbackPending) return finished as R;
      if (paused) await finishResume(paused, this.#pauseBackend());
      await this.#forgetProgress(String(currentState().id));
      const result = await runGlobalAfterKickoff("flow", flowNameOf(this, def), finished);
      if (eventBus.hasListeners("flow_finished")) {
        eventBus.emit("flow_finished", { flowName: flowNameOf(this, def), flowId: String((alongside ? state : this.#liveState()).id), result, durationMs: performance.now() - startedAt });
      }
      return result as R;
    } finally {
      await releaseVerbose?.();
      // The default backend is ours: close it once no kickoff uses it, so a finished kickoff lets the process exit.
      if (--this.#running === 0) await this.#defaultPersistence?.close?.();
    }
  }

  /**
   * Releases what the flow holds open (the default persistence's storage handle; pooled handles also
   * close by themselves when idle). The flow stays usable: the next kickoff opens it again.
   */
  async close(): Promise<void> {
    await this.#defaultPersistence?.close?.();
  }

  /** Copies a flow checkpoint into a new lineage (CrewAI's fork); resume it with `kickoff(inputs, { fromCheckpoint: fork.id })`. */
  static fork(checkpointId: string, options: ForkOptions = {}): Promise<Checkpoint> {
    return forkCheckpoint(checkpointId, "flow", options);
  }

  /** CrewAI's `kickoff_async`; the same as `kickoff`, which is already asynchronous. */
  kickoffAsync(inputs?: FlowInputs<S>, options?: KickoffOptions): Promise<R> {
    return this.kickoff(inputs, options);
  }

  /**
   * Writes a standalone interactive HTML drawing of this flow (CrewAI's `plot`; default file
   * `crewts_flow.html`, `.html` appended when missing) and resolves with its absolute path. The file
   * is already written when the call returns, so `flow.plot("my_flow")` without `await` works too;
   * await it to see errors (a missing directory) as a rejection instead of an unhandled one.
   */
  plot(filename?: string): Promise<string> {
    return plotFlow(flowGraph(this), filename);
  }

  #liveState(): Record<string, unknown> {
    if (!this.#currentState) {
      const initial = this.initialState;
      this.#currentState = isStateSchema(initial)
        ? buildState(this.#definition.name, initial, {}, undefined)
        : buildState(this.#definition.name, undefined, copyInitialState(initial), undefined);
    }
    return this.#currentState;
  }

  /** The instance's state for a kickoff: the current one (or the initial one) with `inputs` merged in. */
  async #ownState(inputs: FlowInputs<S> | undefined): Promise<Record<string, unknown>> {
    if (inputs !== undefined) this.#currentState = await this.#stateFrom(this.#currentState, inputs);
    return this.#liveState();
  }

  /** What a kickoff alongside another starts from: the initial state, as a new instance would. */
  #freshBase(): Record<string, unknown> | undefined {
    return isStateSchema(this.initialState) ? undefined : copyInitialState(this.initialState);
  }

  /** The state a kickoff runs on: `inputs` merged over `current` (or the saved state of `inputs.id`). */
  async #stateFrom(current: Record<string, unknown> | undefined, inputs: Record<string, unknown>): Promise<Record<string, unknown>> {
    const schema = isStateSchema(this.initialState) ? (this.initialState as StateSchema) : undefined;
    // Before the first state exists, fields a schema requires may come from these very inputs.
    let base = current ?? (schema ? {} : copyInitialState(this.initialState));
    const id = inputs.id;
    if (typeof id === "string" && id.length > 0) {
      const backend = this.#restoreBackend();
      const stored = backend ? await backend.loadState(id) : undefined;
      // Over the initial state, so fields added since the save (or dropped by JSON) get their initial values.
      if (stored) base = { ...(schema ? {} : copyInitialState(this.initialState)), ...stored, id };
    }
    return buildState(this.#definition.name, schema, base, inputs);
  }

  /** Where `kickoff({ id })` looks for a saved state: the instance's backend, else the class's or a method's. */
  #restoreBackend(): FlowPersistence | undefined {
    if (this.#persistence) return this.#persistence;
    const target = this.#definition.methods.find((m) => m.persist !== undefined)?.persist;
    return target === undefined ? undefined : this.#backendFor(target);
  }

  /** A finished run leaves no progress behind: the next kickoff by id runs the flow again (CrewAI's behaviour). */
  async #forgetProgress(flowId: string): Promise<void> {
    const backends = new Set<FlowPersistence>();
    for (const m of this.#definition.methods) if (m.persist !== undefined) backends.add(this.#backendFor(m.persist));
    for (const backend of backends) await backend.clearProgress?.(flowId);
  }

  /** Where a pause is saved: the flow's persistence, else the default SQLite one. */
  #pauseBackend(): FlowPersistence {
    return this.#restoreBackend() ?? this.#backendFor("default");
  }

  #backendFor(target: PersistTarget): FlowPersistence {
    if (this.#persistence) return this.#persistence;
    if (target !== "default") return target;
    return (this.#defaultPersistence ??= defaultFlowPersistence());
  }

  #runHost(instance: Flow<S>, state: () => Record<string, unknown>, durable: FlowRunDurability | undefined): FlowRunHost {
    return {
      instance,
      state,
      ...(durable ? { durable } : {}),
      persist: (method: FlowMethodDef, finished: FlowJournalEntry) => {
        const current = state();
        return this.#backendFor(method.persist!).saveState(String(current.id), method.name, current, finished);
      },
    };
  }
}

/**
 * The object a kickoff alongside another runs its methods on: it inherits everything from the flow
 * instance and has its own `state` (and `methodOutputs`), so `this.state` in a method is that run's.
 * Fields a method assigns land on the view, so runs do not share them either.
 */
function runView<F extends object>(flow: F, state: Record<string, unknown>): F {
  const view = Object.create(flow) as F;
  Object.defineProperty(view, "state", { get: () => state });
  return view;
}

/** A method of a concurrent kickoff that read a #private field gets an error that says why and what to do. */
function explainViewError(error: unknown, flowName: string): unknown {
  if (!(error instanceof TypeError) || !/private member|private field/i.test(error.message)) return error;
  return new FlowStateError(
    `Flow "${flowName}" was kicked off while another kickoff of the same instance was running, and one of its methods ` +
      `reads a #private field, which that second run cannot see (${error.message}). Use a TypeScript \`private\` field or ` +
      "keep such values in the state, or create one flow instance per kickoff.",
    { cause: error },
  );
}

// Only an aborted kickoff emits flow_failed for now: a method's own failure is reported by
// method_execution_failed, and listeners rely on that event sequence.
function emitFlowFailed(flowName: string, flowId: string, error: unknown): void {
  if (!runAborted() || !eventBus.hasListeners("flow_failed")) return;
  eventBus.emit("flow_failed", { flowName, flowId, error: error instanceof Error ? error.message : String(error), reason: "aborted" });
}
