/** A list of names for human output: `a, b, c`, or `(none)`. */
export function nameList(names: readonly string[]): string {
  return names.length === 0 ? '(none)' : names.join(', ');
}
