import { escapedText } from '../../shared/schemas/escaped-text';

/**
 * `label: value` lines aligned on the colon, for human output; each value shown with `escapedText`
 * (a value may quote a string a table writer can forge: a stored refusal's message, a record's ids).
 */
export function fieldLines(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(0, ...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${`${label}:`.padEnd(width + 1)} ${escapedText(value)}\n`).join('');
}
