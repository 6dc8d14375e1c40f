import type { AppendBatch, LineageStore } from '../../shared/ports/lineage-store';

/**
 * One whole append as the sealer makes it (docs/sealing.md, "The write"): the batch's records
 * (`putRecords`), then the head moved to the last of them with their markers (`moveHead`). For
 * tests that lay a lineage out in a store.
 */
export async function appendBatch(
  store: Pick<LineageStore, 'putRecords' | 'moveHead'>,
  batch: AppendBatch,
): Promise<void> {
  await store.putRecords(batch.lineageId, batch.entries);
  await store.moveHead(batch);
}
