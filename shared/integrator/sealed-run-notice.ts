import { z } from 'zod';
import { HEX_DIGEST_PATTERN } from '../canonical/digest';
import { LineageIndexValueSchema } from '../index/index-entry';
import { Identifier } from '../schemas/identifier';
import { NonNegativeInt } from '../schemas/non-negative-int';
import { parseInput } from '../schemas/parse';

/** Most residual ids one notice names: a sealer run appends at most 40 records (functions/sealer/seal-run.ts). */
export const MAX_NOTICE_RESIDUALS = 40;

/** Longest `auth.key` accepted, base64 characters (1 KiB): a KMS `CiphertextBlob` of a 32-byte data key is about 184 bytes, 248 characters. */
export const MAX_NOTICE_KEY_BLOB_CHARS = 1024;

/**
 * A notice's authenticator (docs/deployment-log.md, "Sealed-run notices"): `key` is the
 * KMS-wrapped data key (standard base64 of `GenerateDataKey`'s `CiphertextBlob`, under the notice
 * key and its encryption context), `mac` the HMAC-SHA256 under that data key of the notice without
 * `auth` (64 lowercase hex; shared/integrator/notice-mac.ts). Only a notice whose `auth` verifies
 * vouches for the head it names; without it, it is a trigger only.
 */
export const NoticeAuthSchema = z.strictObject({
  key: z
    .string()
    .min(4)
    .max(MAX_NOTICE_KEY_BLOB_CHARS)
    .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'expected standard base64'),
  mac: z.string().regex(HEX_DIGEST_PATTERN, 'expected 64 lowercase hex characters (HMAC-SHA256)'),
});

/** A notice's authenticator. */
export type NoticeAuth = z.infer<typeof NoticeAuthSchema>;

/**
 * What the sealer sends the integrator after each sealed run, one SQS message per run
 * (docs/deployment-log.md, "Sealed-run notices"): the lineage's new head as an index value and
 * the residual ids the run sealed. A notice is the sealer's word and a trigger: the integrator
 * integrates only what it proves from the lineage's own tree. Only with an `auth` that verifies
 * does it also vouch for the head it names (docs/deployment-log.md, "Integration", step 2).
 */
export const SealedRunNoticeSchema = z.strictObject({
  v: z.literal(1),
  lineageId: Identifier,
  head: LineageIndexValueSchema,
  residuals: z
    .array(
      z.strictObject({
        residualId: Identifier,
        seq: NonNegativeInt,
        recordHash: z.string().regex(HEX_DIGEST_PATTERN, 'expected 64 lowercase hex characters (SHA-256)'),
      }),
    )
    .min(1)
    .max(MAX_NOTICE_RESIDUALS),
  /** When the run was appended, ms since the epoch (the sealer's clock). */
  sealedAtMs: NonNegativeInt,
  /** Absent when the sealer had no data key (the notice is then a trigger only, never vouching). */
  auth: NoticeAuthSchema.optional(),
});

/** One sealed-run notice. */
export type SealedRunNotice = z.infer<typeof SealedRunNoticeSchema>;

/**
 * Validates a notice from the queue (strict at every level).
 * @throws {InvalidInputError} naming the bad field
 */
export function parseSealedRunNotice(input: unknown): SealedRunNotice {
  return parseInput(SealedRunNoticeSchema, input, 'sealed-run notice');
}
