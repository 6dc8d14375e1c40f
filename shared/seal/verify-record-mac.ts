import type { MacAnchor } from '../ports/mac-anchor';
import { recordBatchMessage, recordBatchRoot } from './record-batch';
import type { SealedRecord } from './sealed-record';

/**
 * The message a record's MAC is over (docs/sealing.md, "Verification"): its header bytes (the
 * single form, a record without `macBatch`), or `recordBatchMessage` of its `macBatch` size and the
 * root its place folds its record hash to (the batch form); `null` when the batch fields are malformed (the MAC
 * fails). The record hash is the stored one, which the integrity check recomputed from the header.
 */
export function recordMacMessage(record: SealedRecord, headerBytes: Uint8Array): Uint8Array | null {
  if (record.macBatch === undefined) return headerBytes;
  const root = recordBatchRoot(record.recordHash, record.macBatch);
  return root === null ? null : recordBatchMessage(record.macBatch.size, root);
}

/**
 * Whether the record's MAC verifies under `anchor`: the anchor's answer to one `verifyMac` over
 * {@link recordMacMessage}, `false` without asking it when the batch fields are malformed. Each record is checked on
 * its own: its place and the batch MAC, no other record of the batch.
 *
 * @param headerBytes - `headerBytes(record.header)`, from the integrity check that hashed it
 * @throws what `anchor.verifyMac` throws when the check cannot be made (key disabled, unreachable)
 */
export async function verifyRecordMac(
  anchor: MacAnchor,
  record: SealedRecord,
  headerBytes: Uint8Array,
): Promise<boolean> {
  const message = recordMacMessage(record, headerBytes);
  if (message === null) return false;
  return anchor.verifyMac(message, record.anchor);
}
