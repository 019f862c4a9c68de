import type { FlowCondition } from "./conditions/FlowCondition.js";
import { validateConditions } from "./conditions/validateConditions.js";
import { recordMethodSpec } from "./FlowMethodSpec.js";
import type { FlowMethodDecorator } from "./start.js";

/** Options of `@router`. */
export interface RouterOptions {
  /** The labels this router may return; used to validate listeners and to draw plots (CrewAI's `emit`). */
  emit?: readonly string[];
}

/**
 * Runs the method when `condition` is met and routes on its return value: a string (or string enum
 * value) fires the listeners of that label, an array fires each label. Without a condition it
 * stacks with `@start()` to route from an entry point.
 */
export function router(condition?: FlowCondition, options: RouterOptions = {}): FlowMethodDecorator {
  const trigger = condition === undefined ? undefined : validateConditions("router", [condition])[0]!;
  const emit = options.emit ? [...options.emit] : undefined;
  return (method, context) => {
    recordMethodSpec(method, context, { router: true, ...(trigger !== undefined && { trigger }), ...(emit && { emit }) });
  };
}
