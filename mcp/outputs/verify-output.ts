import { z } from 'zod';
import { Identifier, NonNegativeInt } from '../../shared/schemas/primitives';
import { VerificationVerdict } from '../../shared/seal/verification-verdict';
import { HeadOutput } from './head-output';
import { LogCheckOutputFields } from './log-check-output-fields';
import { WrittenByOutput } from './written-by-output';

/** `reseal_verify`: the whole stored lineage verified (every hash, link and MAC) and tied to the signed log. */
export const VerifyOutput = z.object({
  lineageId: Identifier,
  verdict: z.literal(VerificationVerdict.VERIFIED_INTACT),
  records: NonNegativeInt,
  head: HeadOutput.nullable(),
  /** Who wrote each record, in seq order (docs/mcp.md, "Who wrote it"). */
  writtenBy: z.array(z.object({ seq: NonNegativeInt, writtenBy: WrittenByOutput })),
  ...LogCheckOutputFields,
});
/** Type of {@link VerifyOutput}. */
export type VerifyOutput = z.infer<typeof VerifyOutput>;
