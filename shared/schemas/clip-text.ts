/**
 * `text` cut to at most `maxLength` UTF-16 code units, ending in `…` when it was cut, and made
 * well-formed (a lone surrogate, or the half of a pair the cut split, becomes U+FFFD): the one
 * way Reseal bounds free text (refusal reasons, issue messages, details) to a schema's string
 * bound (`wellFormedString(n)` in well-formed-string.ts).
 *
 * @param maxLength - the bound, in UTF-16 code units (at least 1)
 */
export function clipText(text: string, maxLength: number): string {
  return (text.length > maxLength ? `${text.slice(0, maxLength - 1)}…` : text).toWellFormed();
}
