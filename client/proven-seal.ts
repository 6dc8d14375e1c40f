import { FreshnessState } from '../shared/integrator/record-freshness';
import type { Freshness } from './verified-recall';

/** What {@link isProvenSeal} reads of a `SEALED` write outcome (client/write-outcomes.ts). */
export interface SealEvidence {
  /** The record's signed lineage checkpoint (C2SP signed note), or `null`: a head the sealer MAC'd. */
  readonly checkpoint: string | null;
  readonly freshness: Freshness | null;
}

/**
 * Whether a seal is one the client can rely on (docs/pipeline.md, "Polling the table"): its
 * record is in a signed lineage checkpoint (not refused by a deployment log that contradicts it),
 * or `PROVEN` through the deployment log. Any other seal (a head the sealer MAC'd, not yet
 * integrated) is only the table's word: a table writer can put the record, its marker and the
 * head there, so it never outranks a refusal signed for the same request.
 */
export function isProvenSeal(seal: SealEvidence): boolean {
  const state = seal.freshness?.state ?? null;
  if (state === FreshnessState.PROVEN) return true;
  return seal.checkpoint !== null && (state === null || state === FreshnessState.SEALED_AWAITING_INTEGRATION);
}
