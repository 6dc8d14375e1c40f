import { createPublicKey, verify } from 'node:crypto';

/**
 * Whether `signature` (base64, 64 bytes) is a valid pure Ed25519 (RFC 8032) signature of
 * `digest` under `publicKey` (base64 of the raw 32-byte key). Never throws: a key that is not
 * a point, or text that is not base64 of the right length, is `false`.
 */
export function verifyWriterSignature(digest: Uint8Array, publicKey: string, signature: string): boolean {
  try {
    const raw = Buffer.from(publicKey, 'base64');
    const sig = Buffer.from(signature, 'base64');
    if (raw.byteLength !== 32 || sig.byteLength !== 64) return false;
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
    return verify(null, digest, key, sig);
  } catch {
    return false;
  }
}
