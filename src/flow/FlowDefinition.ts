import { conditionTriggers, type FlowCondition } from "./conditions/FlowCondition.js";
import { FlowDefinitionError } from "./errors.js";
import { methodSpecOf, type PersistTarget } from "./FlowMethodSpec.js";
import { classPersistenceOf } from "./persistence/persist.js";

/** One decorated method of a flow class, resolved once per class. */
export interface FlowMethodDef {
  /** Position in `FlowDefinition.methods`; the engine indexes per-run counters with it. */
  readonly index: number;
  readonly name: string;
  readonly fn: (...args: unknown[]) => unknown;
  readonly isStart: boolean;
  /** `@start(label)`: runs when its condition fires, and at kickoff only when no unconditional start exists. */
  readonly isConditionalStart: boolean;
  readonly isRouter: boolean;
  /** What the method waits for: `@listen`/`@router` condition or a conditional start's condition. */
  readonly trigger: FlowCondition | undefined;
  readonly emit: readonly string[] | undefined;
  /** Method-level `@persist`, or the class-level one. */
  readonly persist: PersistTarget | undefined;
  /** Every name or label in `trigger`. */
  readonly triggerNames: ReadonlySet<string>;
  /**
   * `direct`: any one trigger satisfies the condition (a name, or an `or` of names), so no per-run
   * bookkeeping is needed; `tree`: an `and` somewhere, so the run remembers which triggers fired.
   */
  readonly match: "direct" | "tree";
  /** A non-router `or` of several triggers fires once per arming (CrewAI's fired-OR ledger). */
  readonly fireOnce: boolean;
  /** The label the result routes on, when not the result itself (see FlowMethodSpec.routeBy). */
  readonly routeBy?: (result: unknown) => unknown;
}

/** The resolved shape of a flow class: its methods and who listens to what. */
export interface FlowDefinition {
  readonly name: string;
  readonly methods: readonly FlowMethodDef[];
  readonly byName: ReadonlyMap<string, FlowMethodDef>;
  /** Methods run at kickoff: the unconditional starts, or every start when none is unconditional. */
  readonly initialStarts: readonly FlowMethodDef[];
  /** Routers whose condition mentions a given method name or label, in definition order. */
  readonly routersByTrigger: ReadonlyMap<string, readonly FlowMethodDef[]>;
  /** Non-router listeners whose condition mentions a given name or label. */
  readonly listenersByTrigger: ReadonlyMap<string, readonly FlowMethodDef[]>;
  /** Conditional starts whose condition mentions a given label; only router outputs run them (as in CrewAI). */
  readonly startsByTrigger: ReadonlyMap<string, readonly FlowMethodDef[]>;
  /** Router labels listened to (trigger names that are not method names). */
  readonly labels: readonly string[];
  readonly hasRouters: boolean;
  readonly persists: boolean;
  /** Problems that do not stop the flow from running, reported once per class. */
  readonly warnings: readonly string[];
}

type FlowClass = abstract new (...args: never[]) => unknown;
const cache = new WeakMap<object, FlowDefinition>();

/** The definition of a flow class (or of an instance's class), built and validated once per class. */
export function flowDefinition(target: FlowClass | object): FlowDefinition {
  const cls = (typeof target === "function" ? target : target.constructor) as FlowClass;
  let def = cache.get(cls);
  if (!def) {
    def = buildDefinition(cls);
    cache.set(cls, def);
    for (const warning of def.warnings) console.warn(`[crewts] ${warning}`);
  }
  return def;
}

/**
 * The name a flow goes by in events and plots: its `name` property (a field or getter, as CrewAI's
 * `Flow.name`) when that is a non-empty string, else the class name. A class given here goes by its class name.
 */
export function flowNameOf(target: object, def: FlowDefinition): string {
  if (typeof target === "function") return def.name;
  const name = (target as { name?: unknown }).name;
  return typeof name === "string" && name.length > 0 ? name : def.name;
}

function buildDefinition(cls: FlowClass): FlowDefinition {
  const name = cls.name || "Flow";
  const classPersist = classPersistenceOf(cls);
  // The most derived definition of a name wins; an undecorated override removes a flow method.
  const protos: object[] = [];
  for (let p: unknown = cls.prototype; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) protos.push(p);
  const winner = new Map<string, object>();
  for (const proto of protos) {
    for (const key of Object.getOwnPropertyNames(proto)) if (key !== "constructor" && !winner.has(key)) winner.set(key, proto);
  }
  const methods: FlowMethodDef[] = [];
  // Base classes first, each in source order: concurrent starts begin in the order they were written.
  for (const proto of protos.reverse()) {
    for (const key of Object.getOwnPropertyNames(proto)) {
      if (winner.get(key) !== proto) continue;
      const value: unknown = Object.getOwnPropertyDescriptor(proto, key)?.value;
      const spec = methodSpecOf(value);
      if (!spec) continue;
      const fn = value as (...args: unknown[]) => unknown;
      const conditionalStart = spec.start !== undefined && spec.start !== true;
      if (conditionalStart && spec.trigger !== undefined) {
        throw new FlowDefinitionError(`Invalid flow definition in ${name}: "${key}" has both @start(condition) and a @listen/@router condition; use @start() with @router(condition), or one condition.`);
      }
      const trigger = spec.trigger ?? (conditionalStart ? (spec.start as FlowCondition) : undefined);
      const isRouter = spec.router === true;
      const direct = trigger === undefined || typeof trigger === "string" || (trigger.type === "OR" && trigger.conditions.every((c) => typeof c === "string"));
      methods.push({
        index: methods.length,
        name: key,
        fn,
        isStart: spec.start !== undefined,
        isConditionalStart: conditionalStart,
        isRouter,
        trigger,
        emit: spec.emit,
        persist: spec.persist ?? classPersist,
        triggerNames: new Set(trigger === undefined ? [] : conditionTriggers(trigger)),
        match: direct ? "direct" : "tree",
        fireOnce: !isRouter && typeof trigger === "object" && trigger.type === "OR" && trigger.conditions.length > 1,
        ...(spec.routeBy ? { routeBy: spec.routeBy } : {}),
      });
    }
  }
  return assemble(name, methods);
}

function assemble(name: string, methods: FlowMethodDef[]): FlowDefinition {
  const byName = new Map(methods.map((m) => [m.name, m]));
  const routersByTrigger = new Map<string, FlowMethodDef[]>();
  const listenersByTrigger = new Map<string, FlowMethodDef[]>();
  const startsByTrigger = new Map<string, FlowMethodDef[]>();
  const labels = new Set<string>();
  const warnings: string[] = [];

  const starts = methods.filter((m) => m.isStart);
  if (starts.length === 0) {
    throw new FlowDefinitionError(`Invalid flow definition in ${name}: no @start() method. Mark the entry point of the flow with @start().`);
  }
  const unconditional = starts.filter((m) => !m.isConditionalStart);
  const initialStarts = unconditional.length > 0 ? unconditional : starts;
  const routers = methods.filter((m) => m.isRouter);
  // Routers' outputs are unknown in TypeScript unless declared with `emit`, so only a label no router could return is reported.
  const undeclared = routers.some((r) => r.emit === undefined);

  for (const m of methods) {
    if (m.trigger === undefined) {
      if (!m.isStart) throw new FlowDefinitionError(`Invalid flow definition in ${name}: router "${m.name}" has no condition and no @start(); give it @router("method_name") or stack it with @start().`);
      continue;
    }
    for (const t of conditionTriggers(m.trigger)) {
      if (t === m.name) {
        throw new FlowDefinitionError(`Invalid flow definition in ${name}: method "${m.name}" listens to itself ("${t}" is its own name), so it would trigger itself forever. Method names and router labels share one namespace (as in CrewAI): name a handler after what it does, e.g. @listen("${t}") ${handlerName(t)}().`);
      }
      if (!byName.has(t)) labels.add(t);
      const index = m.isRouter ? routersByTrigger : m.isConditionalStart ? startsByTrigger : listenersByTrigger;
      let list = index.get(t);
      if (!list) index.set(t, (list = []));
      if (!list.includes(m)) list.push(m);
    }
    // Conditional starts, like CrewAI's, wake only on router outputs, whatever name they wait for.
    const needsRouter = m.isConditionalStart ? !initialStarts.includes(m) : [...m.triggerNames].some((t) => !byName.has(t));
    if (!needsRouter) continue;
    const waitsFor = m.isConditionalStart ? [...m.triggerNames] : [...m.triggerNames].filter((t) => !byName.has(t));
    for (const t of waitsFor) {
      if (routers.length === 0 && m.isConditionalStart) {
        warnings.push(`${name}: conditional start "${m.name}" waits for "${t}", but only a router's return value starts it and this flow has no router, so it never runs. Add a @router that returns "${t}", or use @start().`);
      } else if (routers.length === 0) {
        warnings.push(`${name}: "${m.name}" listens to "${t}", which is not a method of this flow, and the flow has no router that could emit it, so that trigger never fires. Check the spelling, or add a @router that returns "${t}".`);
      } else if (!undeclared && !routers.some((r) => r.emit?.includes(t))) {
        warnings.push(`${name}: "${m.name}" waits for "${t}", which no router declares in its emit list, so that trigger never fires. Add "${t}" to a router's emit, or check the spelling.`);
      }
    }
  }

  return {
    name,
    methods,
    byName,
    initialStarts,
    routersByTrigger,
    listenersByTrigger,
    startsByTrigger,
    labels: [...labels],
    hasRouters: routers.length > 0,
    persists: methods.some((m) => m.persist !== undefined),
    warnings,
  };
}

/** A suggested method name for the handler of label `label`, e.g. "publish" -> "handlePublish". */
function handlerName(label: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(label) ? `handle${label[0]!.toUpperCase()}${label.slice(1)}` : "handleIt";
}
