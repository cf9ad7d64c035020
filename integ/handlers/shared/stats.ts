export interface Summary {
  readonly min: number;
  readonly median: number;
  readonly max: number;
}

/** min/median/max; the median of an even count is the mean of the two middle values. */
export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) throw new Error('summarize: no values (need at least one run)');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { min: sorted[0], median, max: sorted[sorted.length - 1] };
}

/** Ratio `before / after`, rounded to 2 decimals; undefined when `after` is 0 (no meaningful ratio). */
export function speedUp(before: number, after: number): number | undefined {
  if (after <= 0) return undefined;
  return Math.round((before / after) * 100) / 100;
}

export function round(ms: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(ms * f) / f;
}
