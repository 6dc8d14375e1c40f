import { canonicalJson } from '../shared/canonical/canonical-json';
import { HEAD_KEY_MAC_BYTES, type HeadKeyMac, isHeadKeyMac } from '../shared/log/head-key-mac';
import type { HeadStateMac } from '../shared/log/head-state-mac';
import type { Item } from './item';
import { readBinary, readJson } from './read-attribute';

/** The head item attributes of a head-key MAC ({@link headMacAttributes}). */
export interface HeadKeyMacAttributes {
  /** The MAC, binary, 32 bytes. */
  readonly headKeyMac: Uint8Array;
  /** The wrapped data key (KMS `CiphertextBlob`), binary. */
  readonly headDataKey: Uint8Array;
}

/**
 * A head's voucher as head item attributes (docs/sealing.md, "The append's layout"). A head-key MAC
 * (what the sealer stores now): `headKeyMac` (binary, 32 bytes) and `headDataKey` (the wrapped
 * data key's `CiphertextBlob`, binary), one MAC per head, no list. A KMS head-state MAC (the
 * sealer's fallback when it has no data key, and every head stored before): `headMac`, the
 * canonical JSON of its key id, algorithm and MAC, and for a batch MAC `headMacHeads`, its `heads`
 * binary (32 bytes a digest, in the batch's order). Binary, not hex or base64 in JSON: a small head
 * stays one WCU (under 1 KB).
 */
export function headMacAttributes(
  mac: HeadStateMac | HeadKeyMac,
): { headMac: string; headMacHeads?: Uint8Array } | HeadKeyMacAttributes {
  if (isHeadKeyMac(mac)) return { headKeyMac: mac.mac, headDataKey: Buffer.from(mac.keyBlob, 'base64') };
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

/**
 * A head item's head-key MAC as stored, unverified (`authenticateHeadState` checks it): `mac` from
 * `headKeyMac` and `keyBlob` (standard base64) from `headDataKey`; `null` unless both are binary,
 * the MAC {@link HEAD_KEY_MAC_BYTES} long and the blob not empty (a head then has no head-key MAC,
 * and another voucher must vouch for it).
 */
export function headKeyMacOf(item: Item): HeadKeyMac | null {
  const mac = readBinary(item, 'headKeyMac');
  const blob = readBinary(item, 'headDataKey');
  if (mac?.byteLength !== HEAD_KEY_MAC_BYTES || blob === undefined || blob.byteLength === 0) return null;
  return { mac: Buffer.from(mac), keyBlob: Buffer.from(blob).toString('base64') };
}
