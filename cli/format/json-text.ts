/** Pretty JSON (2 spaces) with a trailing newline: the CLI's `--json` output. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
