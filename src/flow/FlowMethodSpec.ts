import type { FlowCondition } from "./conditions/FlowCondition.js";
import type { FlowPersistence } from "./persistence/FlowPersistence.js";

/** Where a persisted method saves: a given backend, or the lazily created default SQLite one. */
export type PersistTarget = FlowPersistence | "default";

/** What the decorators recorded about one method; stacked decorators merge into one spec. */
export interface FlowMethodSpec {
  name: string;
  /** `true` for `@start()`, a condition for `@start(label)`. */
  start?: true | FlowCondition;
  /** The condition of `@listen(cond)` or `@router(cond)`. */
  trigger?: FlowCondition;
  router?: boolean;
  /** Labels a router declares it may return (`@router(cond, { emit })`), for validation and plots. */
  emit?: readonly string[];
  persist?: PersistTarget;
  /** The label a router's result routes on, when it is not the result itself (`@humanFeedback` routes on the outcome). */
  routeBy?: (result: unknown) => unknown;
}

// Keyed by the method's function: decorators see the function at class definition, before any
// instance exists, and the definition builder finds it again on the prototype chain.
const specs = new WeakMap<object, FlowMethodSpec>();

/** The parts of a method decorator context the registry reads. */
export interface MethodContextLike {
  readonly kind?: string;
  readonly name: string | symbol;
  readonly private: boolean;
  readonly static: boolean;
}

/** Merges `patch` into the spec of `method`, as stacked decorators do. */
export function recordMethodSpec(method: object, context: MethodContextLike, patch: Omit<Partial<FlowMethodSpec>, "name">): void {
  if (context.kind !== undefined && context.kind !== "method") {
    throw new TypeError(`Flow decorators apply to methods; ${String(context.name)} is a class ${context.kind}, not a method. Write it as a method: ${String(context.name)}() { ... }.`);
  }
  if (context.private || context.static || typeof context.name !== "string") {
    throw new TypeError(`Flow decorators apply to public instance methods; ${String(context.name)} is ${context.private ? "private" : context.static ? "static" : "a symbol"}.`);
  }
  const spec = specs.get(method) ?? { name: context.name };
  Object.assign(spec, patch);
  specs.set(method, spec);
}

/** The spec recorded for a method function, if it was decorated. */
export function methodSpecOf(method: unknown): FlowMethodSpec | undefined {
  return typeof method === "function" ? specs.get(method) : undefined;
}
