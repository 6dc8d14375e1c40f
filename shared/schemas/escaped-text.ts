/**
 * Characters a terminal or a text renderer acts on rather than shows: controls (`Cc`: newline,
 * carriage return, the ESC of an ANSI sequence, DEL, C1), format characters (`Cf`: bidi
 * overrides, zero-width ones), line and paragraph separators (`Zl`, `Zp`: U+2028, U+2029), and
 * lone surrogates (`Cs`).
 */
const CONTROL_CHARACTERS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

/** `\uXXXX` (or `\u{XXXXX}` past the BMP) of one code point. */
const escaped = (c: string) => {
  const code = c.codePointAt(0) ?? 0;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/**
 * `text` with every control character ({@link CONTROL_CHARACTERS}) written as the six characters
 * `\uXXXX`, everything else as is: how Reseal shows a string it cannot vouch for (a stored item
 * a table writer may have written, docs/mcp.md, "Untrusted data"), so that it can neither end a
 * line, move a cursor, reorder text nor hide characters, on a terminal or in an agent's context.
 */
export function escapedText(text: string): string {
  return text.replace(CONTROL_CHARACTERS, escaped);
}

/**
 * `value` (JSON-shaped data) with every string, object keys included, passed through
 * {@link escapedText}; numbers, booleans and `null` as they are. A fresh copy: `value` is not
 * changed.
 */
export function escapedStrings(value: unknown): unknown {
  if (typeof value === 'string') return escapedText(value);
  if (Array.isArray(value)) return value.map(escapedStrings);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [escapedText(key), escapedStrings(item)]));
  }
  return value;
}
