import { z } from 'zod';
import { RecordAttributionSchema } from '../authorship/record-attribution';
import type { MacAnchor } from '../ports/mac-anchor';
import { Identifier } from '../schemas/identifier';
import { NonNegativeInt } from '../schemas/non-negative-int';
import { type LineageHead, LineageHeadSchema } from './lineage-head';
import { type TrustedHead, TrustedHeadSchema } from './trusted-head';
import { type TrustedStart, TrustedStartSchema } from './trusted-start';
import { VerificationVerdict } from './verification-verdict';

/** Options of `verifyChain`. */
export interface VerifyChainOptions {
  /** Lineage every record must belong to. */
  readonly lineageId: string;
  /** Anchor whose key sealed the records; every header must name `anchor.keyId`. */
  readonly anchor: MacAnchor;
  /** Trusted head seen earlier (`{ seq, recordHash }` or a whole {@link LineageHead}): detects truncation and rewrites. */
  readonly checkpoint?: TrustedHead | LineageHead;
  /** Verify only the records after a trusted point instead of from genesis. */
  readonly trustedStart?: TrustedStart;
  /** MAC checks in flight at once (1–64, default 8); verdicts do not depend on it. */
  readonly macConcurrency?: number;
}

const isAnchor = (value: unknown): value is MacAnchor =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as MacAnchor).keyId === 'string' &&
  typeof (value as MacAnchor).verifyMac === 'function';

/** Schema of {@link VerifyChainOptions}. */
export const VerifyChainOptionsSchema = z.strictObject({
  lineageId: Identifier,
  anchor: z.custom<MacAnchor>(isAnchor, { message: 'expected a MacAnchor (keyId, verifyMac)' }),
  checkpoint: z.union([TrustedHeadSchema, LineageHeadSchema]).optional(),
  trustedStart: TrustedStartSchema.optional(),
  macConcurrency: z.number().int().min(1).max(64).optional(),
});

const VerdictSchema = z.enum(VerificationVerdict);

/**
 * Verdict on one record of a chain. `seq` and `residualId` are read from the record (`null`
 * when a malformed record does not carry a usable one).
 */
export const RecordVerificationSchema = z.strictObject({
  seq: NonNegativeInt.nullable(),
  residualId: z.string().nullable(),
  verdict: VerdictSchema,
  reason: z.string(),
  /**
   * Who wrote the record (docs/authorship.md, "Who wrote it"), read from its signed fields by the
   * walk that verified it: only on a `VERIFIED_INTACT` record, absent on any other.
   */
  writtenBy: RecordAttributionSchema.optional(),
});
/** Type of {@link RecordVerificationSchema}. */
export type RecordVerification = z.infer<typeof RecordVerificationSchema>;

/**
 * Result of `verifyChain`:
 * - `verdict`: `VERIFIED_INTACT`; else the verdict of `firstFailure`. A definite tamper finding
 *   (`HASH_MISMATCH`, `LINEAGE_BROKEN`, `SEQUENCE_REPLAYED`, `TRUNCATION_DETECTED`) anywhere in the
 *   chain takes precedence over `UNVERIFIED_TAMPER_RISK` (a MAC or key that could not be checked).
 * - `records`: one entry per input record, in input order. Before the first definite failure each
 *   record carries its own outcome: `VERIFIED_INTACT`, or `UNVERIFIED_TAMPER_RISK` when its own
 *   MAC could not be checked; the failing record carries its verdict and reason; later ones are
 *   `UNVERIFIED_TAMPER_RISK` ("not verified: follows the failure at …"). On
 *   `TRUNCATION_DETECTED` every record present keeps its own outcome: the missing ones are the failure.
 * - `firstFailure`: `{ seq, verdict, reason }` of the earliest definite failure, else of the
 *   earliest `UNVERIFIED_TAMPER_RISK` (for truncation, `seq` is the first missing seq), or `null`.
 * - `head`: `{ seq, recordHash }` of the last record of the leading run of `VERIFIED_INTACT`
 *   records (the trusted start when none), or `null`. Only a new checkpoint when `verdict` is
 *   `VERIFIED_INTACT`.
 */
export const ChainVerificationSchema = z.strictObject({
  verdict: VerdictSchema,
  records: z.array(RecordVerificationSchema),
  firstFailure: z
    .strictObject({ seq: NonNegativeInt.nullable(), verdict: VerdictSchema, reason: z.string() })
    .nullable(),
  head: TrustedHeadSchema.nullable(),
  /**
   * When the key-free walk (hashes, links, seq, epochs) reached the end of the records without a
   * definite failure: the last record it linked, as a `trustedStart` for verifying the next page
   * of the same lineage (its MAC may still be unverified). `null` when the walk stopped early.
   */
  linkedThrough: TrustedStartSchema.nullable(),
});
/** Type of {@link ChainVerificationSchema}. */
export type ChainVerification = z.infer<typeof ChainVerificationSchema>;
