import type { LineageHead } from '../../shared/seal/sealed-record';

/** A stored head for `--json` (snake_case), `null` when there is none. */
export function headJson(head: LineageHead | null) {
  return (
    head && {
      lineage_id: head.lineageId,
      seq: head.seq,
      record_hash: head.recordHash,
      generation_epoch: head.generationEpoch,
      mac: head.mac,
      key_id: head.keyId,
    }
  );
}
