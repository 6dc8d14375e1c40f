import { envSnapshotKeysIssue, ownKeyCount } from './env-snapshot-limits';
import { acceptsAsciiMap, isPlainAsciiText } from './hot-checks';
import { parseInput } from './parse';
import { EnvSnapshot } from './primitives';
import { markValidated, type Validated } from './validated';

const MAX_ENV_VALUE_LENGTH = 65_536;

/** An `EnvSnapshot` value: a well-formed string of at most 65,536 UTF-16 units. */
export const isEnvValue = (value: unknown): boolean =>
  typeof value === 'string' && value.length <= MAX_ENV_VALUE_LENGTH && value.isWellFormed();

/** An {@link isEnvValue} value that needs no escape in JSON (printable ASCII, no `"` or `\`). */
export const isPlainAsciiEnvValue = (value: unknown): value is string =>
  typeof value === 'string' && value.length <= MAX_ENV_VALUE_LENGTH && isPlainAsciiText(value);

/**
 * Whether the hand-written checks accept `raw` as an {@link EnvSnapshot} (`false`: ask the
 * schema): printable-ASCII keys, each value an {@link isEnvValue}, at most `MAX_ENV_SNAPSHOT_KEYS`
 * keys (docs/cli.md, "Input limits"; a larger one goes to the schema, which refuses it by count).
 */
export function acceptsEnvSnapshot(raw: unknown): raw is EnvSnapshot {
  return envSnapshotKeysIssue(ownKeyCount(raw)) === null && acceptsAsciiMap(raw, isEnvValue);
}

/**
 * Validates an untrusted environment snapshot once (key → value string, the hostile-key policy
 * of primitives.ts): the checked entry point of triage and of the clients that triage locally.
 * Printable-ASCII keys are checked by hand (shared/schemas/hot-checks.ts, one test per key);
 * any other snapshot goes to the {@link EnvSnapshot} schema, which decides and words the error.
 *
 * @param what - what the snapshot is, for the error message (e.g. `"current environment"`)
 * @throws {InvalidInputError} naming each bad key or value, or (at the root) a snapshot of more
 *   than `MAX_ENV_SNAPSHOT_KEYS` keys, naming the limit and the count
 */
export function parseEnvSnapshot(raw: unknown, what: string): Validated<EnvSnapshot> {
  if (acceptsEnvSnapshot(raw)) return markValidated(raw as EnvSnapshot);
  return markValidated(parseInput(EnvSnapshot, raw, what));
}
