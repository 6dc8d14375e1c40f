import { z } from 'zod';
import { NonNegativeInt } from '../../shared/schemas/non-negative-int';
import { VerificationVerdict } from '../../shared/seal/verification-verdict';
import { WrittenByOutput } from './written-by-output';

/** `format` of a {@link ReceiptVerificationShape}: bumped only when a field changes meaning or goes away. */
export const RECEIPT_VERIFICATION_FORMAT = 'reseal.receipt-verification/1';

/**
 * An offline receipt check (docs/cli.md, `reseal verify --receipt`; docs/verifiable-log.md,
 * "Receipts"): what `reseal verify --receipt --json` prints, camelCase, `format`
 * `reseal.receipt-verification/1`. The record's ids and `writtenBy` come only from a proven
 * record (`null` otherwise).
 */
export const ReceiptVerificationShape = z.object({
  format: z.literal(RECEIPT_VERIFICATION_FORMAT),
  verdict: z.enum(VerificationVerdict),
  reason: z.string(),
  /** The receipt's own `formatVersion`: 2 (the deployment chain) or 1 (the signed lineage checkpoint). */
  receiptFormat: z.union([z.literal(1), z.literal(2)]),
  lineageId: z.string().nullable(),
  seq: NonNegativeInt.nullable(),
  residualId: z.string().nullable(),
  recordHash: z.string().nullable(),
  writtenBy: WrittenByOutput.nullable(),
  /** The checkpoint the record was proven in (format 2: the deployment checkpoint; 1: the lineage's), or `null`. */
  checkpoint: z.object({ origin: z.string(), size: NonNegativeInt }).nullable(),
  /**
   * Freshness under `--policy` (format 2, or format 1 with `--policy`); `null` for format 1 with
   * `--log-key` alone. `checked`: whether `--max-age-seconds` was checked against the quorum time.
   */
  freshness: z
    .object({
      checked: z.boolean(),
      witnessing: z.enum(['WITNESSED', 'UNWITNESSED']),
      /** When the quorum of cosignatures held, ISO 8601 UTC (`null`: unwitnessed, or refused). */
      quorumTime: z.string().nullable(),
      /** Seconds from `quorumTime` to the verifier's clock, or `null`. */
      ageSeconds: z.number().int().nullable(),
      maxAgeSeconds: NonNegativeInt.nullable(),
      /** Why the chain or policy was refused (`POLICY_NOT_MET`, `COSIGNATURES_TOO_OLD`, …), or `null`. */
      refusal: z.string().nullable(),
    })
    .nullable(),
});
/** Type of {@link ReceiptVerificationShape}. */
export type ReceiptVerificationShape = z.infer<typeof ReceiptVerificationShape>;
