import type { LineageHead } from '../seal/lineage-head';
import type { ResidualSealedDetail } from './residual-sealed-detail';

/**
 * The head a `ResidualSealed` event carries for one lineage, a head to check the lineage against
 * (the `checkpoint` option of `verifyLineage`, `reseal verify --checkpoint SEQ:HASH`; docs/sealing.md,
 * "Checkpoints and trusted starts"): of the event's runs of `lineageId`, the newest one's head
 * fields (`{ lineageId, seq, recordHash, generationEpoch, mac, keyId }`), without its tree head,
 * checkpoint or residuals. No validation: parse the detail with `ResidualSealedDetailSchema` first.
 * Nothing here authenticates the head (its `mac` is not checked): it is as trustworthy as the
 * bus's publishers, the sealer's role alone under the bus policy (docs/infrastructure.md,
 * "Permissions"). Keep it only when it is newer than the head already kept for the lineage.
 *
 * @returns `null` when the event carries no run of that lineage
 */
export function sealedRunHead(detail: ResidualSealedDetail, lineageId: string): LineageHead | null {
  let newest: LineageHead | null = null;
  for (const run of detail.runs) {
    if (run.lineageId !== lineageId || (newest && newest.seq >= run.seq)) continue;
    const { seq, recordHash, generationEpoch, mac, keyId } = run;
    newest = { lineageId, seq, recordHash, generationEpoch, mac, keyId };
  }
  return newest;
}
