import { z } from 'zod';
import { NonNegativeInt } from '../../shared/schemas/non-negative-int';

/**
 * The first failure of a chain walk (docs/sealing.md, "Verification"): the seq it names (`null`
 * when the failure is the log's, or the record carries no usable seq), its verdict and the
 * verifier's reason. Shared by `verify`, `inspect` (`--json`) and `reseal_inspect`.
 */
export const FirstFailureOutput = z.object({
  seq: NonNegativeInt.nullable(),
  verdict: z.string(),
  reason: z.string(),
});
/** Type of {@link FirstFailureOutput}. */
export type FirstFailureOutput = z.infer<typeof FirstFailureOutput>;
