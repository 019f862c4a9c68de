import type { FlowCondition } from "./conditions/FlowCondition.js";
import { validateConditions } from "./conditions/validateConditions.js";
import { recordMethodSpec } from "./FlowMethodSpec.js";
import type { FlowMethodDecorator } from "./start.js";

/** Runs the method when `condition` is met: a method name, a router label, or `and(...)`/`or(...)`. */
export function listen(condition: FlowCondition): FlowMethodDecorator {
  const trigger = validateConditions("listen", [condition])[0]!;
  return (method, context) => {
    recordMethodSpec(method, context, { trigger });
  };
}
