import type { FlowCondition } from "./conditions/FlowCondition.js";
import { validateConditions } from "./conditions/validateConditions.js";
import { recordMethodSpec } from "./FlowMethodSpec.js";

/** A TC39 method decorator that records flow metadata and keeps the method as written. */
export type FlowMethodDecorator = <This, Args extends unknown[], Ret>(
  method: (this: This, ...args: Args) => Ret,
  context: ClassMethodDecoratorContext<This, (this: This, ...args: Args) => Ret>,
) => void;

/**
 * Marks an entry point. `@start()` runs at kickoff; `@start(label)` is a conditional start that runs
 * when `label` fires (a method finishing or a router emitting it), and at kickoff only when the flow
 * has no unconditional start.
 */
export function start(condition?: FlowCondition): FlowMethodDecorator {
  const start = condition === undefined ? true : validateConditions("start", [condition])[0]!;
  return (method, context) => {
    recordMethodSpec(method, context, { start });
  };
}
