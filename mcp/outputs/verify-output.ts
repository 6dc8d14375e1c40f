import { z } from 'zod';
import { FreshnessShape } from '../../client/shapes/freshness-shape';
import { HeadOutput } from '../../client/shapes/head-output';
import { WrittenByOutput } from '../../client/shapes/written-by-output';
import { Identifier } from '../../shared/schemas/identifier';
import { NonNegativeInt } from '../../shared/schemas/non-negative-int';
import { VerificationVerdict } from '../../shared/seal/verification-verdict';
import { LogCheckOutputFields } from './log-check-output-fields';

/** `reseal_verify`: the whole stored lineage verified (every hash, link and MAC) and tied to the signed log. */
export const VerifyOutput = z.object({
  lineageId: Identifier,
  verdict: z.literal(VerificationVerdict.VERIFIED_INTACT),
  records: NonNegativeInt,
  head: HeadOutput.nullable(),
  /** Who wrote each record, in seq order (docs/mcp.md, "Who wrote it"). */
  writtenBy: z.array(z.object({ seq: NonNegativeInt, writtenBy: WrittenByOutput })),
  /**
   * Where the verified head stands against the deployment log (docs/mcp.md, "Freshness"): a
   * rolled-back lineage behind the index is `NOT_NEWEST`, never intact; `null` when not checked.
   */
  freshness: FreshnessShape.nullable(),
  ...LogCheckOutputFields,
});
/** Type of {@link VerifyOutput}. */
export type VerifyOutput = z.infer<typeof VerifyOutput>;
