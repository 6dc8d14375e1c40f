import { z } from 'zod';
import type { HexDigest } from '../canonical/digest';
import { hashCanonical } from '../canonical/hash-canonical';
import { FORMAT_VERSION, HashDomain } from '../canonical/hash-domain';
import { InvalidInputError } from '../errors';
import { parseInput } from '../schemas/parse';
import { WriterKeyIdSchema, WriterPublicKeySchema } from './writer-block';

/** Most writer keys one policy names. */
export const MAX_POLICY_WRITERS = 16;
/** Most recovery keys one policy names. */
export const MAX_RECOVERY_KEYS = 8;
/** Longest label of a self-certifying lineage id (`<label>.<32 hex>` is then at most 200 characters). */
export const MAX_LINEAGE_LABEL_LENGTH = 167;
/** Hex characters of `policyDigest` that end a self-certifying lineage id (128 bits). */
export const LINEAGE_ID_SUFFIX_HEX = 32;

/** A key allowed to write a lineage: `{ keyId, publicKey }` (base64 of the raw 32-byte Ed25519 key). */
const WriterKeySchema = z.strictObject({ keyId: WriterKeyIdSchema, publicKey: WriterPublicKeySchema });
/** Type of {@link WriterKeySchema}. */
export type WriterKey = z.infer<typeof WriterKeySchema>;

/**
 * A lineage write policy (docs/authorship.md, "Lineage write policy"): the writer keys that may
 * extend the lineage (1–16, distinct public keys) and the recovery keys that may replace them
 * (0–8 public keys). Strict.
 *
 * `{ v: 1; writers: { keyId; publicKey }[]; recoveryKeys: publicKey[] }`
 */
export const LineagePolicySchema = z
  .strictObject({
    v: z.literal(FORMAT_VERSION),
    writers: z.array(WriterKeySchema).min(1).max(MAX_POLICY_WRITERS),
    recoveryKeys: z.array(WriterPublicKeySchema).max(MAX_RECOVERY_KEYS),
  })
  .superRefine((policy, ctx) => {
    const seen = new Set<string>();
    policy.writers.forEach((writer, i) => {
      if (seen.has(writer.publicKey))
        ctx.addIssue({ code: 'custom', path: ['writers', i, 'publicKey'], message: 'duplicate writer key' });
      seen.add(writer.publicKey);
    });
    const recovery = new Set<string>();
    policy.recoveryKeys.forEach((key, i) => {
      if (recovery.has(key))
        ctx.addIssue({ code: 'custom', path: ['recoveryKeys', i], message: 'duplicate recovery key' });
      recovery.add(key);
    });
  });
/** Type of {@link LineagePolicySchema}. */
export type LineagePolicy = z.infer<typeof LineagePolicySchema>;

/**
 * Digest of a lineage policy: `hashCanonical("reseal/v1/lineage-policy", policy)` (RFC 8785;
 * array order counts). Format-2 headers name it as `policyDigest`.
 *
 * @throws {CanonicalizationError} when `policy` is not exactly representable as JSON
 */
export function policyDigest(policy: LineagePolicy): HexDigest {
  return hashCanonical(HashDomain.LINEAGE_POLICY, policy);
}

const LABEL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@/+=-]*$/;

/**
 * The self-certifying id of a new lineage: `<label>.<first 32 hex characters of
 * policyDigest(inception policy)>` (docs/authorship.md, "Self-certifying lineage ids"). Whoever
 * does not hold a key the policy names cannot start it: another policy gives another id.
 *
 * @param label - 1–167 characters of the identifier alphabet, starting with a letter or digit
 * @throws {InvalidInputError} for a bad label or policy
 */
export function lineageIdFor(label: string, policy: LineagePolicy): string {
  if (typeof label !== 'string' || label.length > MAX_LINEAGE_LABEL_LENGTH || !LABEL_PATTERN.test(label)) {
    throw new InvalidInputError('lineage label', [
      {
        path: '',
        message: `expected 1–${MAX_LINEAGE_LABEL_LENGTH} characters of [A-Za-z0-9._:@/+=-], starting with a letter or digit`,
      },
    ]);
  }
  const parsed = parseInput(LineagePolicySchema, policy, 'lineage policy');
  return `${label}.${policyDigest(parsed).slice(0, LINEAGE_ID_SUFFIX_HEX)}`;
}

/** Whether `lineageId` is the self-certifying id of a lineage incepted with `policy`. */
export function lineageIdMatchesPolicy(lineageId: string, policy: LineagePolicy): boolean {
  const dot = lineageId.lastIndexOf('.');
  if (dot < 1) return false;
  return lineageId.slice(dot + 1) === policyDigest(policy).slice(0, LINEAGE_ID_SUFFIX_HEX);
}
