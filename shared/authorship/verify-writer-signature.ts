import { createPublicKey, type KeyObject, verify } from 'node:crypto';

/**
 * Writers' public keys already decoded, by their base64 text: a stack hears from few writers, and
 * decoding a key (`createPublicKey` from a JWK) costs about a tenth of the Ed25519 check itself.
 * Only keys that decoded are kept; the map is emptied when it reaches {@link MAX_DECODED_KEYS}.
 */
const decodedKeys = new Map<string, KeyObject>();
const MAX_DECODED_KEYS = 256;

/**
 * Whether `signature` (base64, 64 bytes) is a valid pure Ed25519 (RFC 8032) signature of
 * `digest` under `publicKey` (base64 of the raw 32-byte key). Never throws: a key that is not
 * a point, or text that is not base64 of the right length, is `false`.
 */
export function verifyWriterSignature(digest: Uint8Array, publicKey: string, signature: string): boolean {
  try {
    const sig = Buffer.from(signature, 'base64');
    if (sig.byteLength !== 64) return false;
    let key = decodedKeys.get(publicKey);
    if (key === undefined) {
      const raw = Buffer.from(publicKey, 'base64');
      if (raw.byteLength !== 32) return false;
      key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
      if (decodedKeys.size >= MAX_DECODED_KEYS) decodedKeys.clear();
      decodedKeys.set(publicKey, key);
    }
    return verify(null, digest, key, sig);
  } catch {
    return false;
  }
}
