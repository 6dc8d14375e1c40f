import type { ResealClient } from '../../client/reseal-client';
import type { Receipt } from '../../shared/log/receipt';

/**
 * A format-1 receipt of record `seq` as clients produced them before format 1 was retired
 * (docs/verifiable-log.md, "Receipts"): the record proven in the head item's signed lineage
 * checkpoint. For tests of verifying receipts already held.
 *
 * @throws when the head carries no signed checkpoint (a sealer that no longer signs)
 */
export async function formatOneReceipt(client: ResealClient, lineageId: string, seq: number): Promise<Receipt> {
  const proven = await client.provenRecord(lineageId, seq);
  if (proven.checkpoint.note === null) throw new Error('the head carries no signed checkpoint');
  return {
    formatVersion: 1,
    type: 'reseal-receipt',
    lineageId,
    record: proven.record,
    inclusion: proven.inclusion,
    checkpoint: proven.checkpoint.note,
  };
}
