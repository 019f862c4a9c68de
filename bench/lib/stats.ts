// Small statistics over timing samples: the median and the spread (min–max and interquartile range).

/** The value at quantile `q` (0..1) of `xs`, interpolated between neighbours. */
export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}

/** The median of `xs`. */
export function median(xs: readonly number[]): number {
  return quantile(xs, 0.5);
}

/** Median, extremes and interquartile range of a sample set. */
export interface Summary {
  median: number;
  min: number;
  max: number;
  q1: number;
  q3: number;
  n: number;
}

/** Summarizes `xs`. */
export function summarize(xs: readonly number[]): Summary {
  return {
    median: median(xs),
    min: Math.min(...xs),
    max: Math.max(...xs),
    q1: quantile(xs, 0.25),
    q3: quantile(xs, 0.75),
    n: xs.length,
  };
}

/** The spread as a ± percentage of the median: half the interquartile range over the median. */
export function relativeSpread(s: Summary): number {
  return s.median === 0 ? 0 : ((s.q3 - s.q1) / 2 / s.median) * 100;
}

/** A duration in ms with a readable unit (µs below 1 ms, s above 10 s). */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return "n/a";
  if (ms < 1) return `${(ms * 1000).toFixed(ms < 0.01 ? 2 : 1)} µs`;
  if (ms < 10_000) return `${ms.toFixed(ms < 10 ? 2 : ms < 100 ? 1 : 0)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/** A ratio such as 0.0012 or 3.4, with enough digits to read it. */
export function formatRatio(r: number): string {
  if (!Number.isFinite(r)) return "n/a";
  if (r === 0) return "0";
  if (r < 0.001) return `1/${Math.round(1 / r).toLocaleString("en-US")}`;
  if (r < 0.1) return r.toFixed(4);
  if (r < 10) return r.toFixed(2);
  return r.toFixed(0);
}

/** Bytes as MB (10^6 bytes). */
export function formatMB(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
