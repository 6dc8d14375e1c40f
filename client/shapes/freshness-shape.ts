import { z } from 'zod';
import type { ReAnchorNotice } from '../../shared/integrator/re-anchor-statement';
import { FreshnessState } from '../../shared/integrator/record-freshness';
import { NonNegativeInt } from '../../shared/schemas/non-negative-int';
import type { Freshness } from '../verified-recall';

/** `format` of a {@link FreshnessShape}: bumped only when a field changes meaning or goes away. */
export const FRESHNESS_FORMAT = 'reseal.freshness/1';

/**
 * Where a record stands against the witnessed deployment log (docs/cli.md, "Freshness";
 * docs/mcp.md, "Freshness"; docs/deployment-log.md, "Clients"): the one shape `reseal … --json`
 * and the MCP tools both print (camelCase). `PROVEN` only when the lineage head the index holds
 * covers the record under a deployment checkpoint that meets the policy;
 * `SEALED_AWAITING_INTEGRATION` before; never act on `NOT_NEWEST`, `INCONSISTENT` or `REFUSED`.
 * Where it appears, `null` means the client checked no freshness.
 */
export const FreshnessShape = z.object({
  format: z.literal(FRESHNESS_FORMAT),
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
/** Type of {@link FreshnessShape}. */
export type FreshnessShape = z.infer<typeof FreshnessShape>;

/** The {@link FreshnessShape} of a client's finding, or `null` when none was checked. */
export function freshnessShape(freshness: Freshness | null): FreshnessShape | null {
  return (
    freshness && {
      format: FRESHNESS_FORMAT,
      state: freshness.state,
      checkpointSize: freshness.checkpointSize,
      windowSeconds: freshness.windowSeconds,
      witnessing: freshness.witnessing,
      reason: freshness.reason,
      reAnchor: reAnchorShape(freshness.reAnchor ?? null),
    }
  );
}

/** The `reAnchor` of a {@link FreshnessShape}: the notice without its raw note, or `null`. */
function reAnchorShape(notice: ReAnchorNotice | null): FreshnessShape['reAnchor'] {
  return (
    notice && {
      restoredSize: notice.restoredSize,
      lostSize: notice.lostSize,
      lostLeaves: notice.lostLeaves,
      lostRootHash: notice.lostRootHash,
      timeSeconds: notice.timeSeconds,
      reason: notice.reason,
      statementHash: notice.statementHash,
    }
  );
}
