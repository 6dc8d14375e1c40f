/** Pretty JSON (2 spaces) with a trailing newline: the CLI's `--json` output. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** A list of names for human output: `a, b, c`, or `(none)`. */
export function nameList(names: readonly string[]): string {
  return names.length === 0 ? '(none)' : names.join(', ');
}

/**
 * Characters a terminal acts on rather than shows: controls (`Cc`: newline, carriage return, the
 * ESC of an ANSI sequence, DEL, C1), format characters (`Cf`: bidi overrides, zero-width ones),
 * line and paragraph separators, and lone surrogates (`Cs`).
 */
const TERMINAL_CONTROL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

/** `\uXXXX` (or `\u{XXXXX}` past the BMP) of one code point. */
const escaped = (c: string) => {
  const code = c.codePointAt(0) ?? 0;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/**
 * `text` with every character a terminal would act on written as the six characters `\uXXXX`,
 * everything else as is: for one line of human output built from strings a table writer can
 * forge (a stored refusal's message, a record's ids, a verification reason naming them), so that
 * none of them can end a line, move the cursor or erase what the CLI printed (a
 * "(NOT signed …)" marker). Field values that are paths use `printable` (shared/errors.ts).
 */
export function terminalText(text: string): string {
  return text.replace(TERMINAL_CONTROL, escaped);
}

/** Multi-line text (an error message) with each line shown with {@link terminalText}: its own line breaks kept, nothing else acted on. */
export function terminalLines(text: string): string {
  return text.split('\n').map(terminalText).join('\n');
}

/** `label: value` lines aligned on the colon, for human output; each value shown with {@link terminalText}. */
export function fieldLines(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(0, ...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${`${label}:`.padEnd(width + 1)} ${terminalText(value)}\n`).join('');
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
