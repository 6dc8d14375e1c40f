import type { HexDigest } from '../canonical/digest';
import { HashDomain } from '../canonical/hash-domain';
import { HexDigest as HexDigestSchema } from '../schemas/hex-digest';
import { acceptsAsciiMap } from '../schemas/is-ascii-map-key';
import { isHexDigest } from '../schemas/is-hex-digest';
import { parseInput } from '../schemas/parse';
import { safeRecord } from '../schemas/safe-record';
import { type HashedDigestMap, type HashFrame, hashDigestMap } from './hash-digest-map';

/**
 * The composite `precondition_seal` over every key hash (docs/triage.md, rule 1).
 *
 * `SHA-256("reseal/v1/precondition-seal" || 0x00 || JCS({ v: 1, baselineKeyHashes }))`. Every key
 * counts, so a key that changed, vanished or appeared changes the seal.
 *
 * @param baselineKeyHashes - key → {@link envKeyHash}
 * @throws {InvalidInputError} naming the field when a key or digest is malformed
 */
export function compositeSeal(baselineKeyHashes: Readonly<Record<string, HexDigest>>): HexDigest {
  const parsed = acceptsAsciiMap(baselineKeyHashes, isHexDigest)
    ? baselineKeyHashes
    : parseInput(BaselineKeyHashesSchema, baselineKeyHashes, 'baseline key hashes');
  return compositeSealUnchecked(parsed);
}

const BaselineKeyHashesSchema = safeRecord(HexDigestSchema);

/**
 * {@link compositeSeal} for an already validated map: the canonical text of
 * `{ v: 1, baselineKeyHashes }` written directly (`baselineKeyHashes` < `v`).
 */
export function compositeSealUnchecked(baselineKeyHashes: Readonly<Record<string, HexDigest>>): HexDigest {
  return (hashDigestMap(baselineKeyHashes, false, [COMPOSITE_FRAME]) as HashedDigestMap).digests[0] as HexDigest;
}

/** The composite seal's frame: `"reseal/v1/precondition-seal" NUL {"baselineKeyHashes":` map `,"v":1}`. */
export const COMPOSITE_FRAME: HashFrame = [`${HashDomain.COMPOSITE_SEAL}\0{"baselineKeyHashes":`, ',"v":1}'];
