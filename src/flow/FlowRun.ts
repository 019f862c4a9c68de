import { eventBus, withinEvent, type CrewtsEvent } from "../events/index.js";
import type { FlowCondition } from "./conditions/FlowCondition.js";
import { flowNameOf, type FlowDefinition, type FlowMethodDef } from "./FlowDefinition.js";
import { FlowMethodCallLimitError, FlowRouterError } from "./errors.js";
import { errorMessage, methodEventsObserved, stateSnapshot } from "./flowEvents.js";
import { currentRun, runWithContext } from "../runtime/runContext.js";
import { globalHooks } from "../hooks/registry.js";
import { runStepHooks } from "../hooks/runHooks.js";
import type { FlowJournalEntry } from "../runtime/checkpoint/types.js";
import { HumanFeedbackPending } from "./humanFeedback/types.js";
import { flowPauseOf } from "./humanFeedback/crewPause.js";

/** What a run needs from its flow instance. */
export interface FlowRunHost {
  /** The object methods are called on (`this` inside them). */
  readonly instance: object;
  /** The live state, read at each step (kickoff may replace it before the run starts). */
  state(): Record<string, unknown>;
  /** Saves the state after `method` finished; resolves once written. */
  persist(method: FlowMethodDef, finished: FlowJournalEntry): Promise<void>;
  /** Set when the run is durable (checkpoints, or a persisted run's journal): see FlowRunDurability. */
  readonly durable?: FlowRunDurability;
}

/** What makes a run resumable: the journal of finished methods, and the write after each one. */
export interface FlowRunDurability {
  /** Finished methods of an earlier run of this state, replayed without running their bodies. */
  readonly replay?: readonly FlowJournalEntry[];
  /** Called after each method finished (and was journaled), before its listeners start; awaited. */
  methodFinished?(entry: FlowJournalEntry): Promise<unknown>;
}

/** Listeners to run together, each with the payload it receives. */
interface ListenerBatch {
  readonly methods: FlowMethodDef[];
  readonly payloads: unknown[];
}

// Returned instead of a result when the run has failed elsewhere: the caller starts nothing more.
const STOPPED: unique symbol = Symbol("flow run stopped");

/**
 * One kickoff of a flow: CrewAI's engine. Starts run concurrently; after a method finishes, the
 * routers it triggers run in sequence (their labels become triggers), then the listeners it and the
 * labels trigger run concurrently, then conditional starts waiting for those labels run in sequence.
 */
export class FlowRun {
  /** Every method's result, in completion order (CrewAI's `_method_outputs`). */
  readonly outputs: unknown[] = [];
  private readonly calls: Int32Array;
  private readonly completed: Uint8Array;
  /** Triggers seen so far by each `and` condition not yet satisfied, keyed by method (and start) index. */
  private readonly seen = new Map<number, Set<string>>();
  /** Multi-trigger `or` listeners that fired and wait to be re-armed. */
  private readonly firedOr = new Set<number>();
  private failed = false;
  private failure: unknown;
  /** Finished methods with their results, in completion order (kept only for a durable run). */
  readonly journal: FlowJournalEntry[] = [];
  /** Methods started and not finished (kept only for a durable run). */
  readonly inFlight = new Map<string, number>();
  // Results to replay per method, by call number.
  private readonly replay: Map<string, unknown[]> | undefined;

  constructor(
    private readonly host: FlowRunHost,
    private readonly def: FlowDefinition,
    private readonly maxMethodCalls: number,
  ) {
    this.calls = new Int32Array(def.methods.length);
    this.completed = new Uint8Array(def.methods.length);
    const replay = host.durable?.replay;
    if (replay && replay.length > 0) {
      this.replay = new Map();
      for (const entry of replay) {
        let results = this.replay.get(entry.method);
        if (!results) this.replay.set(entry.method, (results = []));
        results.push(entry.result);
        this.journal.push(entry);
      }
    }
  }

  /** `and` conditions met in part: each waiting method with the triggers it has seen. */
  waiting(): { method: string; seen: string[] }[] {
    return [...this.seen].filter(([, seen]) => seen.size > 0).map(([key, seen]) => ({ method: this.def.methods[key < 0 ? -1 - key : key]!.name, seen: [...seen] }));
  }

  /** Runs the flow to the end; rejects with the first error any method threw. */
  async execute(): Promise<unknown> {
    const starts = this.def.initialStarts;
    try {
      if (starts.length === 1) await this.runStart(starts[0]!);
      else await Promise.all(starts.map((s) => this.runStart(s)));
    } catch (error) {
      throw this.failed ? this.failure : error;
    }
    if (this.failed) throw this.failure;
    return this.outputs.length > 0 ? this.outputs[this.outputs.length - 1] : undefined;
  }

  private async runStart(method: FlowMethodDef): Promise<void> {
    const result = await this.invoke(method, undefined);
    // A start that is also a router (`@start() @router()`) routes on its own result.
    if (result !== STOPPED) await this.dispatch(method.name, result, method.isRouter);
  }

  private async runListener(method: FlowMethodDef, payload: unknown): Promise<unknown> {
    const result = await this.invoke(method, payload);
    if (result !== STOPPED) await this.dispatch(method.name, result, false);
    return result;
  }

  /**
   * Runs what `trigger` (a finished method's name) sets off: CrewAI's `_execute_listeners`.
   * `routed`: the finished method is a router whose result labels are triggers too.
   */
  private async dispatch(trigger: string, result: unknown, routed: boolean): Promise<void> {
    if (this.failed) return;
    const def = this.def;
    // Labels emitted in this step, each with the router output that emitted it (what its listeners receive).
    let labels: string[] | undefined;
    let labelPayloads: unknown[] | undefined;
    const label = routed ? labelOf(def.byName.get(trigger), result) : undefined;
    if (routed && emitsLabel(label)) addLabels(label, result, (labels = []), (labelPayloads = []));

    // Routers in sequence: those of the trigger, then those of each label as it is emitted. As in
    // CrewAI, every router of the cascade receives the trigger's result.
    if (def.hasRouters) {
      let current = trigger;
      for (let next = 0; ; next++) {
        const routers = def.routersByTrigger.get(current);
        if (routers !== undefined) {
          for (const router of routers) {
            if (!this.conditionMet(router, router.index, current)) continue;
            const out = await this.runListener(router, result);
            if (out === STOPPED || this.failed) return;
            const outLabel = labelOf(router, out);
            if (emitsLabel(outLabel)) addLabels(outLabel, out, (labels ??= []), (labelPayloads ??= []));
          }
        }
        if (labels === undefined || next >= labels.length) break;
        current = labels[next]!;
      }
    }

    // The common step of a chain: one listener, no labels; no batch arrays needed.
    if (labels === undefined) {
      const listeners = def.listenersByTrigger.get(trigger);
      if (listeners === undefined) return;
      if (listeners.length === 1) {
        const only = listeners[0]!;
        if (this.conditionMet(only, only.index, trigger)) await this.runListener(only, result);
        return;
      }
    }

    // Listeners of the method and of every label, concurrently.
    let batch = this.collect(trigger, result, undefined);
    if (labels !== undefined) {
      // A router emitting again re-arms the `or` listeners that fired on its label before (cycles).
      const rearmable = this.firedOr.size > 0 ? new Set(this.firedOr) : undefined;
      for (let k = 0; k < labels.length; k++) {
        if (rearmable) this.rearm(labels[k]!, rearmable);
        batch = this.collect(labels[k]!, labelPayloads![k], batch);
      }
    }
    if (batch !== undefined) {
      const { methods, payloads } = batch;
      if (methods.length === 1) await this.runListener(methods[0]!, payloads[0]);
      else await Promise.all(methods.map((m, i) => this.runListener(m, payloads[i])));
    }

    // Conditional starts waiting for a label, in sequence: this is how loops come back around.
    if (labels !== undefined) {
      for (const label of labels) {
        const starts = def.startsByTrigger.get(label);
        if (!starts) continue;
        for (const start of starts) {
          if (this.failed) return;
          // Start conditions keep their own bookkeeping, apart from any listener role.
          if (this.conditionMet(start, -1 - start.index, label)) await this.runStart(start);
        }
      }
    }
  }

  /** Adds the listeners `trigger` sets off to `batch`, created on the first one. */
  private collect(trigger: string, payload: unknown, batch: ListenerBatch | undefined): ListenerBatch | undefined {
    const listeners = this.def.listenersByTrigger.get(trigger);
    if (!listeners) return batch;
    for (const listener of listeners) {
      if (this.conditionMet(listener, listener.index, trigger)) {
        batch ??= { methods: [], payloads: [] };
        batch.methods.push(listener);
        batch.payloads.push(payload);
      }
    }
    return batch;
  }

  /** Whether `trigger` completes `method`'s condition; `and` progress is kept under `key` until it fires. */
  private conditionMet(method: FlowMethodDef, key: number, trigger: string): boolean {
    if (method.fireOnce && this.firedOr.has(method.index)) return false;
    if (method.match === "tree") {
      let seen = this.seen.get(key);
      if (!seen) this.seen.set(key, (seen = new Set()));
      seen.add(trigger);
      if (!satisfied(method.trigger!, seen)) return false;
      // Reset after firing, so a cycle has to fire every branch again.
      this.seen.delete(key);
    }
    if (method.fireOnce) this.firedOr.add(method.index);
    return true;
  }

  private rearm(label: string, rearmable: Set<number>): void {
    for (const index of rearmable) {
      if (this.def.methods[index]!.triggerNames.has(label)) {
        this.firedOr.delete(index);
        rearmable.delete(index);
      }
    }
  }

  /** Calls one method with events, the call limit and persistence; STOPPED when the run already failed. */
  private async invoke(method: FlowMethodDef, payload: unknown): Promise<unknown> {
    if (this.failed) return STOPPED;
    // A kickoff with a signal or a stream runs each method in its context, named for the chunks.
    const run = currentRun();
    if (run?.signal?.aborted) throw this.fail(run.signal.reason);
    const i = method.index;
    const calls = ++this.calls[i]!;
    if (calls > this.maxMethodCalls) throw this.fail(new FlowMethodCallLimitError(method.name, this.maxMethodCalls));
    // A method running again means a cycle: every `or` listener may fire again in the new round.
    if (this.completed[i] === 1) this.firedOr.clear();
    // Resuming: a method that finished before gives its recorded result; its body does not run again.
    const recorded = this.replay?.get(method.name);
    if (recorded !== undefined && calls <= recorded.length) {
      this.completed[i] = 1;
      this.outputs.push(recorded[calls - 1]);
      return recorded[calls - 1];
    }
    const durable = this.host.durable;
    if (durable) this.inFlight.set(method.name, (this.inFlight.get(method.name) ?? 0) + 1);

    const observed = methodEventsObserved();
    const startedAt = observed ? performance.now() : 0;
    let started: CrewtsEvent | undefined;
    if (observed && eventBus.hasListeners("method_execution_started")) {
      const state = this.host.state();
      started = eventBus.emit("method_execution_started", { flowName: this.flowName, flowId: String(state.id), methodName: method.name, state: stateSnapshot(state) });
    }

    let result: unknown;
    try {
      // Always passed: `Function.length` misses default and rest parameters, and an unused argument is harmless.
      if (globalHooks.beforeStep.length > 0) payload = await runStepHooks("beforeStep", { kind: "flow_method", stepName: method.name, payload });
      const call = (): unknown => method.fn.call(this.host.instance, payload);
      // Under tracing, crews kicked off in the method nest under its span.
      result = withinEvent(started, run === undefined ? call : () => runWithContext({ ...run, methodName: method.name }, call));
      if (isThenable(result)) result = await result;
      if (globalHooks.afterStep.length > 0) result = await runStepHooks("afterStep", { kind: "flow_method", stepName: method.name, payload: result });
      if (this.failed) return STOPPED;
      if (method.emit !== undefined && method.isRouter) checkRouterOutcome(method, result);
      this.completed[i] = 1;
      this.outputs.push(result);
      // Written before any listener starts, so a process killed after this method loses nothing.
      if (method.persist !== undefined) await this.host.persist(method, { method: method.name, result });
      if (durable) {
        const left = this.inFlight.get(method.name)! - 1;
        if (left === 0) this.inFlight.delete(method.name);
        else this.inFlight.set(method.name, left);
        const entry = { method: method.name, result };
        this.journal.push(entry);
        await durable.methodFinished?.(entry);
      }
    } catch (thrown) {
      // A crew in the method that paused for a human pauses the flow.
      const error = flowPauseOf(thrown, this.def.name, String(this.host.state().id), method.name) ?? thrown;
      if (error instanceof HumanFeedbackPending) {
        if (eventBus.hasListeners("method_execution_paused")) {
          eventBus.emit("method_execution_paused", { flowName: this.flowName, flowId: String(this.host.state().id), methodName: method.name, state: stateSnapshot(this.host.state()) });
        }
      } else if (observed && eventBus.hasListeners("method_execution_failed")) {
        eventBus.emit("method_execution_failed", {
          flowName: this.flowName,
          flowId: String(this.host.state().id),
          methodName: method.name,
          error: errorMessage(error),
          durationMs: performance.now() - startedAt,
        });
      }
      throw this.fail(error);
    }

    if (observed && eventBus.hasListeners("method_execution_finished")) {
      const state = this.host.state();
      eventBus.emit("method_execution_finished", {
        flowName: this.flowName,
        flowId: String(state.id),
        methodName: method.name,
        result,
        state: stateSnapshot(state),
        durationMs: performance.now() - startedAt,
        ...(method.isRouter && { route: routeOf(result) }),
      });
    }
    return result;
  }

  /** The name events carry: the flow's `name` property, else its class name (read only when an event is emitted). */
  private get flowName(): string {
    return flowNameOf(this.host.instance, this.def);
  }

  private fail(error: unknown): unknown {
    if (!this.failed) {
      this.failed = true;
      this.failure = error;
    }
    return error;
  }
}

/** What a router's result routes on: the result, or what its `routeBy` reads from it. */
function labelOf(method: FlowMethodDef | undefined, out: unknown): unknown {
  return method?.routeBy ? method.routeBy(out) : out;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === "object" || typeof value === "function") && typeof (value as { then?: unknown }).then === "function";
}

/** Whether a router's return value emits any label: a non-empty string (or string enum value), a number or boolean, or an array holding one. */
function emitsLabel(out: unknown): boolean {
  switch (typeof out) {
    case "string":
      return out !== "";
    case "number":
    case "boolean":
    case "bigint":
      return true;
    default:
      return Array.isArray(out) && out.some(emitsLabel);
  }
}

/** The labels a router's result emits. */
function routeOf(out: unknown): string[] {
  const labels: string[] = [];
  addLabels(out, out, labels, []);
  return labels;
}

/** A router that declares `emit` must return one of those labels (or none): anything else is a FlowRouterError. */
function checkRouterOutcome(method: FlowMethodDef, out: unknown): void {
  const labels: string[] = [];
  addLabels(out, out, labels, []);
  const unknown = labels.find((label) => !method.emit!.includes(label));
  if (unknown !== undefined) throw new FlowRouterError(method.name, unknown, method.emit!);
}

/** Appends the labels `out` emits (itself, or each entry of an array), each with `payload`. */
function addLabels(out: unknown, payload: unknown, labels: string[], payloads: unknown[]): void {
  if (Array.isArray(out)) {
    for (const item of out) addLabels(item, payload, labels, payloads);
  } else if (emitsLabel(out)) {
    labels.push(String(out));
    payloads.push(payload);
  }
}

function satisfied(condition: FlowCondition, seen: ReadonlySet<string>): boolean {
  if (typeof condition === "string") return seen.has(condition);
  return condition.type === "AND" ? condition.conditions.every((c) => satisfied(c, seen)) : condition.conditions.some((c) => satisfied(c, seen));
}
