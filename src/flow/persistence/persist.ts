import { recordMethodSpec, type PersistTarget } from "../FlowMethodSpec.js";
import type { FlowPersistence } from "./FlowPersistence.js";

// Class-level @persist, keyed by the class: subclasses inherit it through the constructor chain.
const classTargets = new WeakMap<object, PersistTarget>();

/**
 * Saves the flow state after every method (on a class) or after one method (on a method), before
 * the next step is triggered. Without an argument it uses a lazily created `SQLiteFlowPersistence`.
 */
export function persist(persistence?: FlowPersistence) {
  const target: PersistTarget = persistence ?? "default";
  return function (value: unknown, context: ClassDecoratorContext | ClassMethodDecoratorContext): void {
    if (context.kind === "class") classTargets.set(value as object, target);
    else if (context.kind === "method") recordMethodSpec(value as object, context, { persist: target });
    else throw new TypeError("@persist applies to a flow class or one of its methods.");
  };
}

/** The class-level persistence of `cls` or of the nearest base class that has one. */
export function classPersistenceOf(cls: object): PersistTarget | undefined {
  for (let c: object | null = cls; c && c !== Function.prototype; c = Object.getPrototypeOf(c) as object | null) {
    const target = classTargets.get(c);
    if (target) return target;
  }
  return undefined;
}
