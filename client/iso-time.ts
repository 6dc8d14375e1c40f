/**
 * A time (ms since the Unix epoch) as ISO 8601 UTC, or `(invalid time <ms>)` when it is not one
 * a `Date` can hold (NaN, ±Infinity, beyond ±8.64e15 ms, not a number): times come from stored
 * items a table writer can forge, and one of them must never crash the output.
 */
export function isoTime(ms: number): string {
  const date = typeof ms === 'number' ? new Date(ms) : new Date(Number.NaN);
  return Number.isNaN(date.getTime()) ? `(invalid time ${String(ms)})` : date.toISOString();
}
