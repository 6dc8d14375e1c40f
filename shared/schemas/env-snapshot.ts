import { z } from 'zod';
import { envSnapshotKeyLimitIssue, MAX_ENV_SNAPSHOT_BYTES, MAX_ENV_SNAPSHOT_KEYS } from './env-snapshot-limits';
import { groupedCount } from './grouped-count';
import { acceptsAsciiMap, isPlainAsciiText } from './is-ascii-map-key';
import { ownKeyCount } from './own-key-count';
import { parseInput } from './parse';
import { safeRecord } from './safe-record';
import { markValidated, type Validated } from './validated';
import { wellFormedString } from './well-formed-string';

/**
 * A flat environment snapshot: key → value string (docs/triage.md), at most
 * `MAX_ENV_SNAPSHOT_KEYS` keys (docs/cli.md, "Input limits"), counted before any key is checked.
 */
export const EnvSnapshot = z
  .preprocess(
    (raw, ctx) => {
      const issue = envSnapshotKeyLimitIssue(ownKeyCount(raw));
      if (issue === null) return raw;
      ctx.addIssue({ code: 'custom', message: issue, input: raw });
      return z.NEVER;
    },
    safeRecord(wellFormedString(65_536)),
  )
  .meta({
    // What JSON Schema can state of the limits (docs/cli.md, "Input limits"): the key count as
    // `maxProperties`; the byte limit has no keyword (it bounds the JSON text), so it is said in words.
    maxProperties: MAX_ENV_SNAPSHOT_KEYS,
    description:
      `An environment snapshot: key → value, at most ${groupedCount(MAX_ENV_SNAPSHOT_KEYS)} keys ` +
      `(MAX_ENV_SNAPSHOT_KEYS) and at most ${groupedCount(MAX_ENV_SNAPSHOT_BYTES)} bytes of JSON text ` +
      `(MAX_ENV_SNAPSHOT_BYTES), docs/cli.md "Input limits".`,
  });
/** Type of {@link EnvSnapshot}. */
export type EnvSnapshot = z.infer<typeof EnvSnapshot>;

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
  return envSnapshotKeyLimitIssue(ownKeyCount(raw)) === null && acceptsAsciiMap(raw, isEnvValue);
}

/**
 * Validates an untrusted environment snapshot once (key → value string, the hostile-key policy
 * of shared/schemas/safe-record.ts): the checked entry point of triage and of the clients that triage locally.
 * Printable-ASCII keys are checked by hand (shared/schemas/is-ascii-map-key.ts, one test per key);
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
