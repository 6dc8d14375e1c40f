import type { LineageHead } from '../../shared/seal/lineage-head';

/** `SEQ:RECORD_HASH`, as `--checkpoint` takes it. */
export function checkpointText(head: Pick<LineageHead, 'seq' | 'recordHash'>): string {
  return `${head.seq}:${head.recordHash}`;
}
