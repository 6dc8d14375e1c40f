import { z } from 'zod';
import { HEX_DIGEST_PATTERN } from '../canonical/digest';
import {
  envSnapshotKeysIssue,
  groupedCount,
  MAX_ENV_SNAPSHOT_BYTES,
  MAX_ENV_SNAPSHOT_KEYS,
  ownKeyCount,
} from './env-snapshot-limits';
import { NormalFormIndex } from './normal-form';

/**
 * Wire-level building blocks shared by every Reseal schema.
 *
 * Hostile-string policy (documented in docs/canonical-form.md, "Hostile-string policy"):
 * - Every string must be well-formed Unicode: a lone UTF-16 surrogate is refused, since
 *   RFC 8785 cannot canonicalize it.
 * - Keys of maps (environment keys, claim ids) are compared exactly, code unit for code unit;
 *   no Unicode normalization is applied. Two keys that are equal after NFC normalization but
 *   spelled differently (e.g. NFC `é` and NFD `e\u0301`) in one map are refused as ambiguous.
 * - The key `__proto__` is refused in every map: JavaScript object semantics make it
 *   impossible to carry losslessly through common libraries, and no real environment key or
 *   claim id is spelled that way.
 * - Identifiers (lineage, residual, session ids) are restricted to a safe printable alphabet
 *   because they become parts of DynamoDB keys and log fields.
 */

/** Reserved map key, refused everywhere. */
export const RESERVED_KEY = '__proto__';

/**
 * A non-empty text with no control character (U+0000–U+001F, U+007F): map keys, variable
 * names, key ids. The one definition of that rule; each schema adds its own message.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
export const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f]+$/;

/** Canonical standard base64 (RFC 4648 §4, padded) of 32 bytes: an HMAC-SHA-256 MAC, 44 characters. */
export const BASE64_MAC_PATTERN = /^[A-Za-z0-9+/]{43}=$/;

/** Identifier pattern: 1–200 characters from `A–Z a–z 0–9 . _ : @ / + = -`, starting alphanumeric. */
export const IDENTIFIER_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@/+=-]{0,199}$/;

/** A well-formed Unicode string (no lone surrogates), optionally bounded in UTF-16 units. */
export const wellFormedString = (maxLength = 65_536) =>
  z
    .string()
    .max(maxLength)
    .refine((s) => s.isWellFormed(), { message: 'string holds a lone UTF-16 surrogate' });

/** Identifier: 1–200 characters from `A–Z a–z 0–9 . _ : @ / + = -`, starting alphanumeric. */
export const Identifier = z.string().regex(IDENTIFIER_PATTERN, 'identifier must be 1–200 chars of [A-Za-z0-9._:@/+=-]');

/** SHA-256 digest as 64 lowercase hex characters. */
export const HexDigest = z.string().regex(HEX_DIGEST_PATTERN, 'expected 64 lowercase hex characters (SHA-256)');

/** Non-negative safe integer (sequence numbers, epochs). */
export const NonNegativeInt = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** Milliseconds since the Unix epoch (UTC). */
export const EpochMillis = NonNegativeInt;

/**
 * A reference to one record of a lineage: its sequence number and record hash (strict). The one
 * definition of the `{ seq, recordHash }` shape: what a re-seal supersedes, a trusted checkpoint
 * of a chain, the record a recall proof names.
 */
export const RecordRefSchema = z.strictObject({
  /** Sequence number of the record. */
  seq: NonNegativeInt,
  /** Its record hash. */
  recordHash: HexDigest,
});
/** Type of {@link RecordRefSchema}. */
export type RecordRef = z.infer<typeof RecordRefSchema>;

/** A map key: well-formed, 1–512 UTF-16 units, no control characters, not `__proto__`. */
export const MapKey = wellFormedString(512).min(1).regex(NO_CONTROL_CHARACTERS, 'key holds a control character');

/**
 * A JSON object used as a map, with the hostile-key policy above enforced: `__proto__` refused,
 * keys that collide after NFC normalization refused (shared/schemas/normal-form.ts). Output is a
 * plain object.
 */
export function safeRecord<V extends z.ZodType>(value: V) {
  return z.preprocess(
    (raw, ctx) => {
      if (raw !== null && typeof raw === 'object' && Object.hasOwn(raw, RESERVED_KEY)) {
        ctx.addIssue({ code: 'custom', message: `key "${RESERVED_KEY}" is reserved and refused`, input: raw });
        return z.NEVER;
      }
      if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
        const seen = new NormalFormIndex<string>();
        for (const key of Object.keys(raw)) {
          const other = seen.claim(key, key);
          if (other !== undefined) {
            ctx.addIssue({
              code: 'custom',
              message: `keys ${JSON.stringify(other)} and ${JSON.stringify(key)} are the same text in different Unicode normal forms`,
              input: raw,
            });
            return z.NEVER;
          }
        }
      }
      return raw;
    },
    z.record(MapKey, value),
  );
}

/**
 * A flat environment snapshot: key → value string (docs/triage.md), at most
 * `MAX_ENV_SNAPSHOT_KEYS` keys (docs/cli.md, "Input limits"), counted before any key is checked.
 */
export const EnvSnapshot = z
  .preprocess(
    (raw, ctx) => {
      const issue = envSnapshotKeysIssue(ownKeyCount(raw));
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

/**
 * Authority a record carries (docs/guard.md, rule V6; docs/sealing.md, "Authority: why no record is read unverified").
 * - `OPERATIONAL`: asserts current truth; must be verified before use.
 * - `INFORMATIONAL_ONLY`: may be read unverified, never acted on as operational truth.
 * - `HISTORICAL_ATTRIBUTION`: documents a predecessor's state; exempt from freshness checks,
 *   carries no operational authority.
 */
export const Authority = {
  OPERATIONAL: 'OPERATIONAL',
  INFORMATIONAL_ONLY: 'INFORMATIONAL_ONLY',
  HISTORICAL_ATTRIBUTION: 'HISTORICAL_ATTRIBUTION',
} as const;
/** One of {@link Authority}. */
export type Authority = (typeof Authority)[keyof typeof Authority];
/** Schema of {@link Authority}. */
export const AuthoritySchema = z.enum(Authority);
