/** What {@link redactedText} writes in place of a quoted stored string. */
export const REDACTED_TEXT = '[stored text: see untrusted]';

/**
 * `text` (a sentence Reseal wrote, e.g. a verifier's reason) with every occurrence of each of
 * `quoted` (strings read from storage that the sentence may quote, unproven) replaced by
 * {@link REDACTED_TEXT}: how an answer says why without repeating a table writer's words outside
 * its `untrusted` field (docs/mcp.md, "Untrusted data"). Longer quotes are replaced first;
 * quotes shorter than `minLength` characters are left, as too short to carry an instruction and
 * too likely to match Reseal's own words.
 *
 * @param minLength - the shortest quote replaced, in UTF-16 code units (default 4)
 */
export function redactedText(text: string, quoted: readonly string[], minLength = 4): string {
  const quotes = [...new Set(quoted)].filter((q) => q.length >= minLength).sort((a, b) => b.length - a.length);
  return quotes.reduce((out, quote) => out.split(quote).join(REDACTED_TEXT), text);
}
