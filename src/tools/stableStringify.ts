/**
 * JSON text of `value` with object keys sorted at every depth, so `{a, b}` and `{b, a}` give the
 * same text (cache keys, repeated-call detection). Values JSON cannot hold fall back to String().
 */
export function stableStringify(value: unknown): string {
  try {
    return JSON.stringify(sortKeys(value)) ?? fallbackText(value);
  } catch {
    return fallbackText(value);
  }
}

/** Text for a value JSON cannot represent (undefined, bigint, symbol, function, circular object). */
export function fallbackText(value: unknown): string {
  if (typeof value === "function") return `[function ${value.name || "anonymous"}]`;
  if (typeof value === "object" && value !== null) return Object.prototype.toString.call(value);
  return String(value);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  // Dates, Maps and class instances keep their own JSON form (toJSON or {}), as JSON.stringify would.
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  return sorted;
}
