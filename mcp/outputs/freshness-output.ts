import { z } from 'zod';
import { FreshnessState } from '../../shared/integrator/record-freshness';
import { NonNegativeInt } from '../../shared/schemas/primitives';

/**
 * Where a record stands against the witnessed deployment log (docs/mcp.md, "Freshness";
 * docs/deployment-log.md, "Clients"), as `reseal recall --json` shows it (camelCase): `PROVEN`
 * only when the lineage head the index holds covers the record under a deployment checkpoint
 * that meets the policy; `SEALED_AWAITING_INTEGRATION` before; never act on `NOT_NEWEST`,
 * `INCONSISTENT` or `REFUSED`. `null` when the server's client checked no freshness.
 */
export const FreshnessOutput = z.object({
  state: z.enum(FreshnessState),
  /** Size of the deployment checkpoint checked against, or `null` (none published, or refused). */
  checkpointSize: NonNegativeInt.nullable(),
  /** Maximum age + integration interval, seconds; `null` when unwitnessed (no window at all). */
  windowSeconds: NonNegativeInt.nullable(),
  /** `UNWITNESSED`: the policy is the log alone; a cold client cannot detect a rollback of the whole table. */
  witnessing: z.enum(['WITNESSED', 'UNWITNESSED']),
  reason: z.string(),
});
/** Type of {@link FreshnessOutput}. */
export type FreshnessOutput = z.infer<typeof FreshnessOutput>;
