/** A combination of conditions built by `and(...)` or `or(...)`; nests arbitrarily. */
export interface CompoundCondition {
  readonly type: "AND" | "OR";
  readonly conditions: readonly FlowCondition[];
}

/** What a `@listen`, `@router` or conditional `@start` waits for: a method name or router label, or a combination. */
export type FlowCondition = string | CompoundCondition;

/** Whether `value` is a condition built by `and(...)` or `or(...)`. */
export function isCompoundCondition(value: unknown): value is CompoundCondition {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as { type?: unknown; conditions?: unknown };
  return (candidate.type === "AND" || candidate.type === "OR") && Array.isArray(candidate.conditions);
}

/** Every method name or label a condition mentions, in order of first mention. */
export function conditionTriggers(condition: FlowCondition): string[] {
  const out = new Set<string>();
  const walk = (c: FlowCondition): void => {
    if (typeof c === "string") out.add(c);
    else for (const sub of c.conditions) walk(sub);
  };
  walk(condition);
  return [...out];
}

/** A readable rendering of a condition, e.g. `a OR (b AND c)`. */
export function describeCondition(condition: FlowCondition): string {
  if (typeof condition === "string") return condition;
  const parts = condition.conditions.map((c) => (typeof c === "string" ? c : `(${describeCondition(c)})`));
  return parts.join(` ${condition.type} `);
}
