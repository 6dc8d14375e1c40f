/** Pretty JSON (2 spaces) with a trailing newline: the CLI's `--json` output. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** A list of names for human output: `a, b, c`, or `(none)`. */
export function nameList(names: readonly string[]): string {
  return names.length === 0 ? '(none)' : names.join(', ');
}

/** `label: value` lines aligned on the colon, for human output. */
export function fieldLines(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(0, ...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${`${label}:`.padEnd(width + 1)} ${value}\n`).join('');
}
