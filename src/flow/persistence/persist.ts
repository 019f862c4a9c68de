import { recordMethodSpec, type PersistTarget } from "../FlowMethodSpec.js";
import type { FlowPersistence } from "./FlowPersistence.js";

// Class-level @persist, keyed by the class: subclasses inherit it through the constructor chain.
const classTargets = new WeakMap<object, PersistTarget>();

type DecoratorContext = ClassDecoratorContext | ClassMethodDecoratorContext;

/** What `persist(...)` returns: a decorator for a flow class or one of its methods. */
export type PersistDecorator = (value: unknown, context: DecoratorContext) => void;

/**
 * Saves the flow state after every method (on a class) or after one method (on a method), before
 * the next step is triggered. Without an argument it uses a lazily created `SQLiteFlowPersistence`.
 * Like CrewAI's, it may also be written without parentheses: `@persist class MyFlow ...`.
 */
export function persist(persistence?: FlowPersistence): PersistDecorator;
export function persist(value: unknown, context: DecoratorContext): void;
export function persist(arg?: unknown, context?: DecoratorContext): PersistDecorator | void {
  // Bare `@persist`: called as the decorator itself, with the class or method and its context.
  if (context !== undefined) return applyPersist("default", arg, context);
  if (arg !== undefined && (typeof arg !== "object" || arg === null || typeof (arg as FlowPersistence).saveState !== "function")) {
    throw new TypeError("@persist(persistence) takes a FlowPersistence (an object with saveState and loadState), or nothing for the default SQLite backend.");
  }
  const target: PersistTarget = (arg as FlowPersistence | undefined) ?? "default";
  return (value, ctx) => applyPersist(target, value, ctx);
}

function applyPersist(target: PersistTarget, value: unknown, context: DecoratorContext): void {
  if (context.kind === "class") classTargets.set(value as object, target);
  else if (context.kind === "method") recordMethodSpec(value as object, context, { persist: target });
  else throw new TypeError("@persist applies to a flow class or one of its methods.");
}

/** The class-level persistence of `cls` or of the nearest base class that has one. */
export function classPersistenceOf(cls: object): PersistTarget | undefined {
  for (let c: object | null = cls; c && c !== Function.prototype; c = Object.getPrototypeOf(c) as object | null) {
    const target = classTargets.get(c);
    if (target) return target;
  }
  return undefined;
}
