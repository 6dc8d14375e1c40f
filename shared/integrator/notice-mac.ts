import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '../canonical/canonical-json';
import type { NoticeAuth, SealedRunNotice } from './sealed-run-notice';

/** The domain tag before a notice's canonical JSON in the bytes its `auth.mac` covers. */
export const NOTICE_MAC_DOMAIN = 'reseal/sealed-run-notice/v1\n';

/** Length of a notice data key, bytes (AES_256 from KMS `GenerateDataKey`). */
export const NOTICE_DATA_KEY_BYTES = 32;

const encoder = new TextEncoder();

/**
 * The bytes a notice's `auth.mac` covers (docs/deployment-log.md, "Sealed-run notices"):
 * UTF-8 of {@link NOTICE_MAC_DOMAIN} followed by the RFC 8785 canonical JSON of the notice without
 * `auth`, so the MAC binds every field, and a MAC of anything else (another tag) is never one.
 */
export function noticeMacMessage(notice: SealedRunNotice): Uint8Array {
  const { auth: _auth, ...unauthenticated } = notice;
  return encoder.encode(NOTICE_MAC_DOMAIN + canonicalJson(unauthenticated));
}

/** HMAC-SHA256 of {@link noticeMacMessage} under `dataKey` (the plaintext data key), 64 lowercase hex. */
export function noticeMac(notice: SealedRunNotice, dataKey: Uint8Array): string {
  return createHmac('sha256', dataKey).update(noticeMacMessage(notice)).digest('hex');
}

/**
 * `notice` with its `auth`: the wrapped data key (`keyBlob`, standard base64 of the KMS
 * `CiphertextBlob`) and the MAC under the plaintext `dataKey` it wraps.
 */
export function withNoticeAuth(notice: SealedRunNotice, dataKey: Uint8Array, keyBlob: string): SealedRunNotice {
  const { auth: _auth, ...unauthenticated } = notice;
  const auth: NoticeAuth = { key: keyBlob, mac: noticeMac(unauthenticated, dataKey) };
  return { ...unauthenticated, auth };
}

/**
 * Whether `notice.auth.mac` is the MAC of the notice under `dataKey`, the plaintext KMS unwrapped
 * from `notice.auth.key` (the caller's `Decrypt`; this stays free of AWS). Constant-time compare.
 * `false` for a notice without `auth` and for a key of any length but {@link NOTICE_DATA_KEY_BYTES}.
 */
export function isNoticeMacValid(notice: SealedRunNotice, dataKey: Uint8Array): boolean {
  if (!notice.auth || dataKey.byteLength !== NOTICE_DATA_KEY_BYTES) return false;
  const expected = Buffer.from(noticeMac(notice, dataKey), 'hex');
  const given = Buffer.from(notice.auth.mac, 'hex');
  return given.byteLength === expected.byteLength && timingSafeEqual(given, expected);
}
