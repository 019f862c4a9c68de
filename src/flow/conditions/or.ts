import type { CompoundCondition, FlowCondition } from "./FlowCondition.js";
import { validateConditions } from "./validateConditions.js";

/** A condition met as soon as any one of `conditions` fires (CrewAI's `or_`). */
export function or(...conditions: FlowCondition[]): CompoundCondition {
  return { type: "OR", conditions: validateConditions("or", conditions) };
}
