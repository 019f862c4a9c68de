import { eventBus } from "../events/index.js";
import { flowDefinition, flowNameOf, type FlowDefinition, type FlowMethodDef } from "./FlowDefinition.js";
import { flowGraph } from "./FlowGraph.js";
import { buildState, copyInitialState, type FlowState, type InitialState, isStateSchema, type StateSchema } from "./flowState.js";
import type { PersistTarget } from "./FlowMethodSpec.js";
import { FlowStateError } from "./errors.js";
import { FlowRun } from "./FlowRun.js";
import { printFlow } from "./flowVerbose.js";
import { plotFlow } from "./plot/plotFlow.js";
import type { FlowPersistence } from "./persistence/FlowPersistence.js";
import { SQLiteFlowPersistence } from "./persistence/SQLiteFlowPersistence.js";

/** Options of a flow instance. */
export interface FlowOptions {
  /** Backend for every persisted method of this instance, and for restoring by `kickoff({ id })`. */
  persistence?: FlowPersistence;
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
  /** Print a live account of each kickoff (methods, router outcomes, timings); off by default. */
  verbose = false;

  #currentState: Record<string, unknown> | undefined;
  // Kickoffs of this instance in progress.
  #running = 0;
  #lastRun: FlowRun | undefined;
  readonly #persistence: FlowPersistence | undefined;
  #defaultPersistence: SQLiteFlowPersistence | undefined;
  readonly #definition: FlowDefinition;
  // The constructor's verbose option wins over the class field (which a subclass sets after the constructor ran).
  readonly #verboseOption: boolean | undefined;

  /** Checks the class's decorators (once per class), so a broken flow fails where it is built. */
  constructor(options: FlowOptions = {}) {
    this.#persistence = options.persistence;
    this.#verboseOption = options.verbose;
    this.#definition = flowDefinition(this);
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
   * and resolves with the result of the method that finished last.
   */
  async kickoff(inputs?: FlowInputs<S>): Promise<R> {
    const def = this.#definition;
    const startedAt = performance.now();
    // A kickoff while another runs on this instance gets a state of its own (see runView).
    const alongside = this.#running > 0;
    let releaseVerbose: (() => Promise<void>) | undefined;
    this.#running++;
    try {
      const state = alongside ? await this.#stateFrom(this.#freshBase(), inputs ?? {}) : await this.#ownState(inputs);
      const instance = alongside ? runView(this, state) : this;
      releaseVerbose = (this.#verboseOption ?? this.verbose) ? printFlow(String(state.id)) : undefined;
      if (eventBus.hasListeners("flow_started")) {
        eventBus.emit("flow_started", { flowName: flowNameOf(this, def), flowId: String(state.id), inputs: { ...inputs } });
      }
      const run = new FlowRun(this.#runHost(instance, alongside ? () => state : () => this.#liveState()), def, this.maxMethodCalls);
      if (alongside) Object.defineProperty(instance, "methodOutputs", { get: () => run.outputs });
      else this.#lastRun = run;
      const result = await run.execute().catch((error: unknown) => {
        throw alongside ? explainViewError(error, def.name) : error;
      });
      if (eventBus.hasListeners("flow_finished")) {
        eventBus.emit("flow_finished", { flowName: flowNameOf(this, def), flowId: String((alongside ? state : this.#liveState()).id), result, durationMs: performance.now() - startedAt });
      }
      return result as R;
    } finally {
      await releaseVerbose?.();
      // The default backend is ours: close it once no kickoff uses it, so a finished kickoff lets the process exit.
      if (--this.#running === 0) await this.#defaultPersistence?.close();
    }
  }

  /**
   * Releases what the flow holds open (the default persistence's storage handle; pooled handles also
   * close by themselves when idle). The flow stays usable: the next kickoff opens it again.
   */
  async close(): Promise<void> {
    await this.#defaultPersistence?.close();
  }

  /** CrewAI's `kickoff_async`; the same as `kickoff`, which is already asynchronous. */
  kickoffAsync(inputs?: FlowInputs<S>): Promise<R> {
    return this.kickoff(inputs);
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

  #backendFor(target: PersistTarget): FlowPersistence {
    if (this.#persistence) return this.#persistence;
    if (target !== "default") return target;
    return (this.#defaultPersistence ??= new SQLiteFlowPersistence());
  }

  #runHost(instance: Flow<S>, state: () => Record<string, unknown>) {
    return {
      instance,
      state,
      persist: (method: FlowMethodDef) => {
        const current = state();
        return this.#backendFor(method.persist!).saveState(String(current.id), method.name, current);
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
