import { createPublicKey, verify } from 'node:crypto';
import { ED25519_PUBLIC_KEY_BYTES } from './ed25519-vkey';
import { ED25519_SIGNATURE_BYTES } from './note-key';

/**
 * Whether `signature` is a valid pure Ed25519 signature (RFC 8032 §5.1.7) of `message` under the
 * raw `publicKey`. Never throws: false also for wrong lengths or a key that is not a curve point.
 */
export function verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (!(publicKey instanceof Uint8Array) || publicKey.byteLength !== ED25519_PUBLIC_KEY_BYTES) return false;
  if (!(signature instanceof Uint8Array) || signature.byteLength !== ED25519_SIGNATURE_BYTES) return false;
  try {
    const key = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') },
      format: 'jwk',
    });
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}
