import { type FlowCondition, isCompoundCondition } from "./FlowCondition.js";

/** Rejects what is neither a method name nor a combination, at class definition, where the mistake is made. */
export function validateConditions(combinator: string, conditions: readonly unknown[]): FlowCondition[] {
  if (conditions.length === 0) throw new TypeError(`${combinator}() needs at least one condition`);
  for (const c of conditions) {
    if (typeof c === "function") {
      // `@start` without parentheses, or a method reference as in Python's `@listen(begin)`.
      throw new TypeError(
        `Invalid condition in ${combinator}(): got the function ${c.name || "(anonymous)"}. Call decorators with parentheses (@start(), @listen("begin")) and name methods as strings.`,
      );
    }
    if (!(typeof c === "string" && c.length > 0) && !isCompoundCondition(c)) {
      throw new TypeError(`Invalid condition in ${combinator}(): ${String(c)}. Pass method names, router labels, or and()/or() results.`);
    }
  }
  return conditions as FlowCondition[];
}
