import { InvalidInputError } from '../errors';
import { type NoteVerifierKey, parseVerifierKey } from '../log/note-key';

/** Most recovery keys one configuration may hold. */
export const MAX_RECOVERY_KEYS = 16;

/**
 * Reads a recovery-key configuration (`RECOVERY_KEYS` of the witness and the integrator,
 * docs/deployment-log.md, "Re-anchor"): signed-note vkeys (type 0x01, `<name>+<hash>+<key>`)
 * separated by white space. An empty or absent text is no key: re-anchors are then refused.
 *
 * @throws {InvalidInputError} for a key that does not parse (the issue names its position), a
 *   repeated key, or more than {@link MAX_RECOVERY_KEYS}
 */
export function parseRecoveryKeys(text: string | undefined): readonly NoteVerifierKey[] {
  const words = (text ?? '').split(/\s+/).filter((w) => w.length > 0);
  if (words.length > MAX_RECOVERY_KEYS) {
    throw new InvalidInputError('recovery keys', [
      { path: '', message: `expected at most ${MAX_RECOVERY_KEYS} vkeys` },
    ]);
  }
  if (new Set(words).size !== words.length) {
    throw new InvalidInputError('recovery keys', [{ path: '', message: 'repeated key' }]);
  }
  return words.map((word, i) => {
    try {
      return parseVerifierKey(word);
    } catch (error) {
      const reason = error instanceof InvalidInputError ? (error.issues[0]?.message ?? error.message) : String(error);
      throw new InvalidInputError('recovery keys', [{ path: String(i), message: reason }], { cause: error });
    }
  });
}
