import { createPublicKey } from 'node:crypto';
import { InvalidInputError } from '../errors';
import { ED25519_PUBLIC_KEY_BYTES } from './ed25519-vkey';

/**
 * The raw 32-byte Ed25519 public key inside an X.509 SubjectPublicKeyInfo (DER): what KMS
 * `GetPublicKey` returns for an `ECC_NIST_EDWARDS25519` key.
 * @throws {InvalidInputError} when `der` is not an SPKI of an Ed25519 key
 */
export function publicKeyFromSpki(der: Uint8Array): Uint8Array {
  try {
    const key = createPublicKey({ key: Buffer.from(der), format: 'der', type: 'spki' });
    if (key.asymmetricKeyType === 'ed25519') {
      const raw = Buffer.from(key.export({ format: 'jwk' }).x ?? '', 'base64url');
      if (raw.byteLength === ED25519_PUBLIC_KEY_BYTES) return Uint8Array.from(raw);
    }
  } catch (error) {
    throw new InvalidInputError('public key', [{ path: '', message: 'expected a DER SubjectPublicKeyInfo' }], {
      cause: error,
    });
  }
  throw new InvalidInputError('public key', [{ path: '', message: 'expected an Ed25519 key' }]);
}
