import { InvalidInputError } from '../errors';
import { type NoteVerifierKey, parseVerifierKey } from '../log/note-key';

/**
 * The logs a witness cosigns for: origin → the log's verifier keys. A log's key name is its
 * origin (C2SP tlog-policy, "Defining a log"), which Reseal's deployment log satisfies: origin
 * and key name are both `reseal/<stackName>` (docs/witness.md, "Configuration").
 */
export type TrustedLogs = ReadonlyMap<string, readonly NoteVerifierKey[]>;

/** Most log keys one witness configuration may hold. */
export const MAX_TRUSTED_LOG_KEYS = 64;

/**
 * Reads the witness's log configuration: signed-note vkeys (`<name>+<hash>+<key>`, as
 * `reseal log-key` prints) separated by white space; each key's name is the origin it signs for.
 * Several keys may share an origin (a key rotation); a repeated vkey is refused.
 *
 * @throws {InvalidInputError} for an empty list, more than {@link MAX_TRUSTED_LOG_KEYS} keys, a
 *   key that does not parse (the issue names its position), or a repeated key
 */
export function parseTrustedLogs(text: string): TrustedLogs {
  const words = typeof text === 'string' ? text.split(/\s+/).filter((w) => w.length > 0) : [];
  if (words.length === 0) {
    throw new InvalidInputError('witness log keys', [{ path: '', message: 'expected at least one log vkey' }]);
  }
  if (words.length > MAX_TRUSTED_LOG_KEYS) {
    throw new InvalidInputError('witness log keys', [
      { path: '', message: `expected at most ${MAX_TRUSTED_LOG_KEYS} log vkeys` },
    ]);
  }
  const logs = new Map<string, NoteVerifierKey[]>();
  const seen = new Set<string>();
  words.forEach((word, i) => {
    let key: NoteVerifierKey;
    try {
      key = parseVerifierKey(word);
    } catch (error) {
      const reason = error instanceof InvalidInputError ? (error.issues[0]?.message ?? error.message) : String(error);
      throw new InvalidInputError('witness log keys', [{ path: String(i), message: reason }], { cause: error });
    }
    if (seen.has(word)) throw new InvalidInputError('witness log keys', [{ path: String(i), message: 'repeated key' }]);
    seen.add(word);
    logs.set(key.name, [...(logs.get(key.name) ?? []), key]);
  });
  return logs;
}
