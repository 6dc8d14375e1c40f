import { createHmac, timingSafeEqual } from 'node:crypto';
import { hashCanonical } from '../canonical/hash-canonical';
import { HashDomain } from '../canonical/hash-domain';
import { type HeadState, headStateBody } from './head-state-mac';

/** Length of a head-key MAC and of the data key it is taken under, bytes (HMAC-SHA-256; AES_256 data key). */
export const HEAD_KEY_MAC_BYTES = 32;

/**
 * A head state's MAC under a notice data key (docs/verifiable-log.md, "Appending"): the sealer's
 * word on a head without a KMS call per invocation. Stored as the head item's `headKeyMac` and
 * `headDataKey` (adapters/head-mac-attributes.ts).
 */
export interface HeadKeyMac {
  /** HMAC-SHA-256 of {@link headKeyMessage} under the plaintext data key, 32 bytes. */
  readonly mac: Uint8Array;
  /** The data key as KMS wrapped it (`CiphertextBlob`, standard base64): what a reader `Decrypt`s. */
  readonly keyBlob: string;
}

/**
 * The 32 bytes a head-key MAC is taken over:
 * `SHA-256("reseal/v1/head-state-key" || 0x00 || JCS({ v: 1, lineageId, treeSize, rootHash, headSeq,
 * headRecordHash, generationEpoch, writerPolicyDigest }))` (docs/canonical-form.md). Another tag
 * than the KMS head-state MAC's (`reseal/v1/head-state`) and batch's, so the digests differ; never
 * a notice's message (UTF-8 text after its own tag, longer than 32 bytes) nor a record's canonical
 * header: a MAC under the notice data key cannot pass for a head's, nor a head's for a notice's.
 */
export function headKeyMessage(state: HeadState): Uint8Array {
  return Buffer.from(hashCanonical(HashDomain.HEAD_STATE_KEY, headStateBody(state)), 'hex');
}

/**
 * The head-key MAC of `state` under `dataKey` (the plaintext notice data key, 32 bytes), 32 bytes:
 * HMAC-SHA-256 of {@link headKeyMessage}, in process.
 * @throws {RangeError} when `dataKey` is not {@link HEAD_KEY_MAC_BYTES} long
 */
export function headKeyMac(state: HeadState, dataKey: Uint8Array): Uint8Array {
  if (dataKey.byteLength !== HEAD_KEY_MAC_BYTES) throw new RangeError(`a data key of ${dataKey.byteLength} bytes`);
  return createHmac('sha256', dataKey).update(headKeyMessage(state)).digest();
}

/**
 * Whether `mac` is the head-key MAC of exactly `state` under `dataKey` (the plaintext the caller's
 * opener unwrapped from the stored blob; this stays free of AWS). Constant-time compare. `false`
 * for a MAC or a key of any length but {@link HEAD_KEY_MAC_BYTES}. Says nothing about freshness:
 * an older head of the lineage verifies too (the index is the floor).
 */
export function isHeadKeyMacValid(state: HeadState, dataKey: Uint8Array, mac: Uint8Array): boolean {
  if (dataKey.byteLength !== HEAD_KEY_MAC_BYTES || mac.byteLength !== HEAD_KEY_MAC_BYTES) return false;
  return timingSafeEqual(Buffer.from(headKeyMac(state, dataKey)), Buffer.from(mac));
}

/**
 * Whether a head's voucher as the sealer stores it is a {@link HeadKeyMac} (else the KMS head-state
 * MAC, `HeadStateMac`: shared/log/head-state-mac.ts).
 */
export function isHeadKeyMac(mac: HeadKeyMac | object): mac is HeadKeyMac {
  return 'keyBlob' in mac && 'mac' in mac && mac.mac instanceof Uint8Array;
}
