import { RECORD_BATCH_SALT_BYTES, type RecordBatchPlace } from '../shared/seal/record-batch';
import type { Item } from './item';
import { readBinary } from './read-attribute';

/** Bytes before a stored place's path: index and size (4 each), then the salt. */
const PLACE_HEAD_BYTES = 8 + RECORD_BATCH_SALT_BYTES;

/**
 * The place no MAC check accepts (index 0 of a batch of 0, no salt): what a `macBatch` spelled in
 * the record's JSON, or an unreadable attribute, reads as. A fresh object each call.
 */
export function emptyMacBatch(): RecordBatchPlace {
  return { index: 0, size: 0, salt: '', path: [] };
}

/**
 * A record's place in its MAC batch as the record item's `macBatch` attribute (docs/sealing.md,
 * "Stored items"): the leaf index and the batch size, 4 bytes each (big-endian), the record's
 * 16-byte salt, then the audit path, 32 bytes a hash. A batch of 10 records is 8 + 16 + 4 × 32 =
 * 152 bytes, a third of the place's hex text in the JSON. The salt is stored here only: a record
 * whose item was never stored leaves no salt anywhere (docs/sealing.md, "The record and its seal").
 *
 * @throws {RangeError} when the index or size is not a 32-bit unsigned integer, the salt not 16
 *   bytes of lowercase hex, or a path element not 64 hex
 */
export function macBatchBytes({ index, size, salt, path }: RecordBatchPlace): Uint8Array {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(index, 0);
  head.writeUInt32BE(size, 4);
  if (salt === undefined || !new RegExp(`^[0-9a-f]{${2 * RECORD_BATCH_SALT_BYTES}}$`).test(salt))
    throw new RangeError(`salt ${salt} is not ${RECORD_BATCH_SALT_BYTES} bytes of lowercase hex`);
  const hashes = path.map((node) => {
    if (!/^[0-9a-f]{64}$/.test(node)) throw new RangeError(`path element ${node} is not 64 lowercase hex`);
    return Buffer.from(node, 'hex');
  });
  return Buffer.concat([head, Buffer.from(salt, 'hex'), ...hashes]);
}

/**
 * The place a record item's `macBatch` attribute stores, unverified: index, size, salt and path
 * (hex, 32 bytes an element; a salt or last element cut short reads shorter, so its MAC fails). An
 * attribute that is not binary or shorter than 8 bytes reads as index 0 of a batch of 0 with no
 * salt (a place no MAC check accepts); `undefined` without the attribute.
 */
export function macBatchOf(item: Item): RecordBatchPlace | undefined {
  if (item.macBatch === undefined) return undefined;
  const bytes = readBinary(item, 'macBatch');
  if (bytes === undefined || bytes.byteLength < 8) return emptyMacBatch();
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const path: string[] = [];
  for (let at = PLACE_HEAD_BYTES; at < view.byteLength; at += 32) path.push(view.subarray(at, at + 32).toString('hex'));
  const salt = view.subarray(8, PLACE_HEAD_BYTES).toString('hex');
  return { index: view.readUInt32BE(0), size: view.readUInt32BE(4), salt, path };
}
