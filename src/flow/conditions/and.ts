import type { CompoundCondition, FlowCondition } from "./FlowCondition.js";
import { validateConditions } from "./validateConditions.js";

/** A condition met once every one of `conditions` has fired (CrewAI's `and_`). */
export function and(...conditions: FlowCondition[]): CompoundCondition {
  return { type: "AND", conditions: validateConditions("and", conditions) };
}
