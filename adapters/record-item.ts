import { gunzipSync, gzipSync } from 'node:zlib';
import { canonicalJson } from '../shared/canonical/canonical-json';
import type { LogEntry } from '../shared/log/log-extension';
import { type Item, itemOf } from './item';
import { LineageKeys } from './lineage-keys';
import { emptyMacBatch, macBatchBytes, macBatchOf } from './mac-batch';
import { NOT_JSON, readAttribute, readHashes, readStoredJson } from './read-attribute';

/**
 * Most a stored record may inflate to, as a multiple of its compressed bytes. The writer
 * compresses a record only when it stays within this ratio ({@link storedRecordBytes}), so an
 * honest item always reads; a planted one (a "zip bomb") makes a reader allocate at most this
 * multiple of what it read, per item (docs/sealing.md, "Stored items").
 */
export const MAX_RECORD_INFLATION = 16;

/**
 * A record's canonical JSON as the record item stores it: gzip-compressed (binary) when that is
 * smaller and inflates at most {@link MAX_RECORD_INFLATION} times, else the text itself. Its hex
 * digests, key ARNs and JSON names are about half redundant, so a 1 KiB write's record drops from
 * about 3 KB to under 2 KB: 2 WCU instead of 3 or 4, twice over in the append's transaction.
 */
export function storedRecordBytes(text: string): string | Uint8Array {
  const compressed = gzipSync(text);
  const size = Buffer.byteLength(text);
  return compressed.byteLength < size && size <= MAX_RECORD_INFLATION * compressed.byteLength ? compressed : text;
}

/**
 * The record item of a log entry: the record as canonical JSON without its manifest, which is
 * stored once in the manifest item its header names (`manifestItem`, adapters/manifest-item.ts),
 * compressed when that pays ({@link storedRecordBytes}), with the tree nodes it completes, binary
 * ({@link recordNodesOf}; docs/pipeline.md, "Data layout"), and a batch-MAC'd record's place in
 * its batch, binary ({@link macBatchBytes}), not in the JSON.
 */
export function recordItem(lineageId: string, { record, nodes }: LogEntry): Item {
  // The nodes in binary, 32 bytes each: half the bytes of their hex text (a few dozen per record).
  const seq = record.header.monotonicSequenceNumber;
  const { manifest: _stored, macBatch, ...withoutManifest } = record;
  return itemOf({
    pk: LineageKeys.lineage(lineageId),
    sk: LineageKeys.record(seq),
    record: storedRecordBytes(canonicalJson(withoutManifest)),
    nodes: Buffer.concat(nodes.map((hash) => Buffer.from(hash, 'hex'))),
    ...(macBatch === undefined ? {} : { macBatch: macBatchBytes(macBatch) }),
  });
}

/**
 * The tree nodes a record item stores, `nodes[level]` as hex (docs/verifiable-log.md, "Stored
 * state"): binary, 32 bytes a node (the layout since records were compressed), or a JSON array of
 * hex text (items written before; read as they stand). `null` when absent or malformed (binary not
 * a whole number of nodes, text that is not a list): a proof needing it then fails.
 */
export function recordNodesOf(item: Item): unknown[] | null {
  return readHashes(item, 'nodes');
}

/**
 * The stored record: parsed JSON, or the raw text when it is not strict JSON (the verifier refuses
 * it); `null` when the item has no `record`, or one that is neither text nor gzip that inflates
 * within {@link MAX_RECORD_INFLATION} times its size. Both forms read: text (items written before
 * records were compressed, and records compression does not shrink) and gzip (docs/sealing.md,
 * "Stored items"). A batch-MAC'd record gets its `macBatch` from the item's binary attribute
 * ({@link macBatchOf}); the place is stored one way only, so a `macBatch` inside the JSON reads
 * as a place no MAC check accepts (a second spelling never authenticates a record).
 */
export function recordOf(item: Item): unknown {
  const record = storedRecordOf(item);
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return record;
  if (Object.hasOwn(record, 'macBatch')) return { ...record, macBatch: emptyMacBatch() };
  const macBatch = macBatchOf(item);
  return macBatch === undefined ? record : { ...record, macBatch };
}

/** The `record` attribute, parsed ({@link recordOf} without the batch place). */
function storedRecordOf(item: Item): unknown {
  const value = readAttribute(item, 'record');
  let text: string;
  if (typeof value === 'string') text = value;
  else if (value instanceof Uint8Array && value.byteLength > 0) {
    try {
      text = gunzipSync(value, { maxOutputLength: MAX_RECORD_INFLATION * value.byteLength }).toString('utf8');
    } catch {
      return null; // not gzip, cut short, or past the ratio: refused, never inflated further
    }
  } else return null;
  const parsed = readStoredJson(text);
  return parsed === NOT_JSON ? text : parsed;
}
