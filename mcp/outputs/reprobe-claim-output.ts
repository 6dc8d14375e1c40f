import { z } from 'zod';
import { JsonPayloadSchema } from '../../shared/write/json-payload';

/** A claim to re-probe before use: its content may no longer hold here. */
export const ReprobeClaimOutput = z.object({
  claimId: z.string(),
  causalKeys: z.array(z.string()),
  /** Its causal keys that changed, vanished or appeared (empty when structural drift voided every claim). */
  driftedKeys: z.array(z.string()),
  /** The sealed content, to re-check rather than trust. */
  previousContent: JsonPayloadSchema.nullable(),
});
