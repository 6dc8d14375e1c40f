import { z } from 'zod';
import { JsonPayloadSchema } from '../../shared/write/json-payload';

/** A claim that stands: its causal keys did not drift. */
export const KeptClaimOutput = z.object({
  claimId: z.string(),
  causalKeys: z.array(z.string()),
  /** What the record holds for it (`payload.claims.<claimId>`), `null` when the payload has none. */
  content: JsonPayloadSchema.nullable(),
});
