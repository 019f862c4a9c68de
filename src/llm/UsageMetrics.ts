import type { TokenUsage } from "./types.js";

/** Token usage summed over calls, with the number of calls that succeeded. */
export interface UsageMetrics extends TokenUsage {
  successfulRequests: number;
}

/** A zeroed UsageMetrics. */
export function emptyUsageMetrics(): UsageMetrics {
  return { promptTokens: 0, completionTokens: 0, totalTokens: 0, successfulRequests: 0 };
}

/** Whether `usage` counts nothing at all. */
export function isEmptyUsage(usage: UsageMetrics): boolean {
  return usage.promptTokens === 0 && usage.completionTokens === 0 && usage.totalTokens === 0 && usage.successfulRequests === 0;
}

/** Adds one call's usage (or another metrics record) into `into`, in place. */
export function addToUsageMetrics(into: UsageMetrics, usage: TokenUsage | UsageMetrics): UsageMetrics {
  into.promptTokens += usage.promptTokens;
  into.completionTokens += usage.completionTokens;
  into.totalTokens += usage.totalTokens;
  into.successfulRequests += "successfulRequests" in usage ? usage.successfulRequests : 1;
  return into;
}
