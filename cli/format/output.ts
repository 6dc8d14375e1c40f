import { escapedText } from '../../shared/schemas/escaped-text';

/** Pretty JSON (2 spaces) with a trailing newline: the CLI's `--json` output. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** A list of names for human output: `a, b, c`, or `(none)`. */
export function nameList(names: readonly string[]): string {
  return names.length === 0 ? '(none)' : names.join(', ');
}

/**
 * Multi-line text (an error message) with each line shown with `escapedText`
 * (shared/schemas/escaped-text.ts): its own line breaks kept, nothing else acted on.
 */
export function terminalLines(text: string): string {
  return text.split('\n').map(escapedText).join('\n');
}

/**
 * `label: value` lines aligned on the colon, for human output; each value shown with `escapedText`
 * (a value may quote a string a table writer can forge: a stored refusal's message, a record's ids).
 */
export function fieldLines(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(0, ...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${`${label}:`.padEnd(width + 1)} ${escapedText(value)}\n`).join('');
}

/**
 * A time (ms since the Unix epoch) as ISO 8601 UTC, or `(invalid time <ms>)` when it is not one
 * a `Date` can hold (NaN, ±Infinity, beyond ±8.64e15 ms, not a number): times come from stored
 * items a table writer can forge, and one of them must never crash the output.
 */
export function isoTime(ms: number): string {
  const date = typeof ms === 'number' ? new Date(ms) : new Date(Number.NaN);
  return Number.isNaN(date.getTime()) ? `(invalid time ${String(ms)})` : date.toISOString();
}
