import { canonicalJson } from '../shared/canonical/canonical-json';
import type { HeadStateMac } from '../shared/log/head-state-mac';
import type { Item } from './item';
import { readBinary, readJson } from './read-attribute';

/**
 * A head-state MAC as head item attributes (docs/sealing.md, "The append's layout"): `headMac`,
 * the canonical JSON of its key id, algorithm and MAC, and for a batch MAC `headMacHeads`, its
 * `heads` binary (32 bytes a digest, in the batch's order). Binary, not hex in the JSON: 10 heads
 * add 320 bytes rather than 670, so a small head stays one WCU (under 1 KB).
 */
export function headMacAttributes(mac: HeadStateMac): { headMac: string; headMacHeads?: Uint8Array } {
  const { heads, ...signature } = mac;
  return {
    headMac: canonicalJson(signature),
    ...(heads === undefined ? {} : { headMacHeads: Buffer.concat(heads.map((head) => Buffer.from(head, 'hex'))) }),
  };
}

/**
 * A head item's head-state MAC as stored, unverified (`verifyHeadStateMac` checks it): the
 * `headMac` JSON, with `heads` from `headMacHeads` when that attribute is there (hex, in order; a
 * binary that is not a whole number of digests, or not binary, reads as `heads: null`, which never
 * verifies); `null` without a readable `headMac`. A batch's list is stored one way only, the
 * binary attribute {@link headMacAttributes} writes: a `heads` inside the `headMac` JSON (with or
 * without `headMacHeads`) reads as `heads: null` too, so a second spelling of a batch never
 * authenticates a head.
 */
export function headMacOf(item: Item): unknown | null {
  const stored = readJson<unknown>(item, 'headMac', null);
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return stored;
  if ('heads' in stored) return { ...stored, heads: null };
  if (item.headMacHeads === undefined) return stored;
  const bytes = readBinary(item, 'headMacHeads');
  const heads =
    bytes === undefined || bytes.byteLength % 32 !== 0
      ? null
      : Array.from({ length: bytes.byteLength / 32 }, (_, i) =>
          Buffer.from(bytes.subarray(i * 32, i * 32 + 32)).toString('hex'),
        );
  return { ...stored, heads };
}
