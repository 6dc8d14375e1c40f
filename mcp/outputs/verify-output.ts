import { z } from 'zod';
import { Identifier, NonNegativeInt } from '../../shared/schemas/primitives';
import { VerificationVerdict } from '../../shared/seal/verification-verdict';
import { HeadOutput } from './head-output';
import { LogCheckOutputFields } from './log-check-output-fields';

/** `reseal_verify`: the whole stored lineage verified (every hash, link and MAC) and tied to the signed log. */
export const VerifyOutput = z.object({
  lineageId: Identifier,
  verdict: z.literal(VerificationVerdict.VERIFIED_INTACT),
  records: NonNegativeInt,
  head: HeadOutput.nullable(),
  ...LogCheckOutputFields,
});
/** Type of {@link VerifyOutput}. */
export type VerifyOutput = z.infer<typeof VerifyOutput>;
