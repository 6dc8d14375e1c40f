/**
 * The NFC-collision check, defined once (docs/canonical-form.md, "Hostile-string policy"): map
 * keys, claim ids and variable names are compared code unit for code unit, and two of them that
 * are the same text in different Unicode normal forms (NFC `é` and NFD `e\u0301`) are refused
 * as ambiguous, since a writer and a reader could disagree on which one is meant. Each user words
 * its own refusal (`safeRecord`, the write request's names, `buildManifest`'s claim ids and
 * declared-absent keys).
 */

/** The form a text is compared by: its NFC normalization; a text with a lone surrogate (which has no normal form) as it is. */
export function normalFormOf(text: string): string {
  return text.isWellFormed() ? text.normalize('NFC') : text;
}

/**
 * Texts by their {@link normalFormOf}, each with an entry of the caller's (the text itself, or
 * where it was met), to find the earlier text a new one collides with.
 */
export class NormalFormIndex<T> {
  readonly #byForm = new Map<string, T>();

  /**
   * The entry of an earlier text of the same normal form as `text` (the same text included), or
   * `undefined` after recording `entry` for `text`: the first of colliding texts is kept.
   */
  claim(text: string, entry: T): T | undefined {
    const form = normalFormOf(text);
    const earlier = this.#byForm.get(form);
    if (earlier === undefined) this.#byForm.set(form, entry);
    return earlier;
  }

  /** Records `entry` for `text`, replacing the entry of an earlier text of the same normal form. */
  set(text: string, entry: T): void {
    this.#byForm.set(normalFormOf(text), entry);
  }

  /** The entry recorded for a text of the same normal form as `text`, if any. */
  find(text: string): T | undefined {
    return this.#byForm.get(normalFormOf(text));
  }
}
