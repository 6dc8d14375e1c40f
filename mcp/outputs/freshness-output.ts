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
  /**
   * The operator's re-anchor the chain carries (docs/deployment-log.md, "Re-anchor"): the log was
   * restored from a backup and restarted from `restoredSize`, losing `lostLeaves` leaves of the
   * history witnesses had cosigned up to `lostSize`; signed by a recovery key and the log key and
   * cosigned. `null` when the history was never re-anchored.
   */
  reAnchor: z
    .object({
      restoredSize: NonNegativeInt,
      lostSize: NonNegativeInt,
      lostLeaves: NonNegativeInt,
      lostRootHash: z.string(),
      /** Seconds since the Unix epoch, as the statement says. */
      timeSeconds: NonNegativeInt,
      reason: z.string(),
      statementHash: z.string(),
    })
    .nullable(),
});
/** Type of {@link FreshnessOutput}. */
export type FreshnessOutput = z.infer<typeof FreshnessOutput>;
