import { z } from 'zod';
import { NonNegativeInt } from '../../shared/schemas/non-negative-int';
import { VerificationVerdict } from '../../shared/seal/verification-verdict';
import { FirstFailureOutput } from './first-failure-output';
import { FreshnessShape } from './freshness-shape';
import { HeadOutput } from './head-output';
import { WrittenByOutput } from './written-by-output';

/** `format` of a {@link VerificationShape}: bumped only when a field changes meaning or goes away. */
export const VERIFICATION_FORMAT = 'reseal.verification/1';

/**
 * A whole-chain verification (docs/cli.md, `reseal verify --export`, `--lineage`): what `reseal
 * verify --json` prints for an export file or a stored lineage, camelCase, `format`
 * `reseal.verification/1`. The fields only a stored lineage has (`authenticatedBy`,
 * `keptCheckpoint`, `freshness`, `treeHead`, `awaitingIntegrationFromSeq`) are `null` for an export.
 */
export const VerificationShape = z.object({
  format: z.literal(VERIFICATION_FORMAT),
  verdict: z.enum(VerificationVerdict),
  lineageId: z.string(),
  recordsChecked: NonNegativeInt,
  /** How MACs were checked: `kms`, `local-key`, `unavailable`, `unpinned` (fail closed), or `signed-tree` (no MAC call). */
  macCheck: z.enum(['kms', 'local-key', 'unavailable', 'unpinned', 'signed-tree']),
  /** `--lineage`: `signed-tree` (every record a leaf of the tree head) or `macs` (`--audit-macs`); `null` for an export. */
  authenticatedBy: z.enum(['signed-tree', 'macs']).nullable(),
  /** The key the MACs were checked under (pinned by the verifier), or the key named when none could be. */
  keyId: z.string(),
  /** The head the tail was checked against and where it came from (`--checkpoint`, the export's head), or `null`. */
  checkpoint: HeadOutput.extend({ source: z.string() }).nullable(),
  firstFailure: FirstFailureOutput.nullable(),
  /** `--lineage`: the signed checkpoint kept in the checkpoint store (`size` `null`: it does not verify), or `null`. */
  keptCheckpoint: z.object({ size: NonNegativeInt.nullable() }).nullable(),
  /** The last record of the leading run of verified records (only a new checkpoint when `verdict` is `VERIFIED_INTACT`). */
  verifiedHead: HeadOutput.nullable(),
  note: z.string().nullable(),
  /** `--lineage`: where the verified head stands against the deployment log (docs/cli.md, "Freshness"); `null`: not checked. */
  freshness: FreshnessShape.nullable(),
  /** `--lineage`: the tree head the walk was tied to and what vouches for it, or `null`. */
  treeHead: z.object({ size: NonNegativeInt, vouchedBy: z.enum(['signed-checkpoint', 'index']) }).nullable(),
  /** `--lineage`: the first seq sealed past the tree head the index holds (awaiting integration), or `null`. */
  awaitingIntegrationFromSeq: NonNegativeInt.nullable(),
  /** Every record in input order with its own verdict; `writtenBy` only for one that verifies (docs/authorship.md, "Who wrote it"). */
  records: z.array(
    z.object({
      seq: NonNegativeInt.nullable(),
      residualId: z.string().nullable(),
      verdict: z.enum(VerificationVerdict),
      reason: z.string(),
      writtenBy: WrittenByOutput.nullable(),
    }),
  ),
});
/** Type of {@link VerificationShape}. */
export type VerificationShape = z.infer<typeof VerificationShape>;
