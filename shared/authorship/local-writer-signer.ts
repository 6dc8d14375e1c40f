import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { InvalidInputError } from '../errors';
import type { WriterSigner } from '../ports/writer-signer';
import { parseInput } from '../schemas/parse';
import { WriterKeyIdSchema } from './writer-block';

/** DER prefix of a PKCS #8 Ed25519 private key (RFC 8410 §7); the 32-byte seed follows. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * {@link WriterSigner} over an Ed25519 private key held by node:crypto (docs/authorship.md,
 * "Writer keys"): a PKCS #8 PEM file (`reseal writer-key new`), a 32-byte seed (tests, vectors),
 * or a fresh key. Ed25519 is deterministic: one key and digest always give one signature.
 */
export class LocalWriterSigner implements WriterSigner {
  readonly keyId: string;
  readonly publicKey: string;
  readonly #privateKey: KeyObject;

  /** @throws {InvalidInputError} for a bad key id or a key that is not an Ed25519 private key */
  constructor(keyId: string, privateKey: KeyObject) {
    this.keyId = parseInput(WriterKeyIdSchema, keyId, 'writer key id');
    if (privateKey.type !== 'private' || privateKey.asymmetricKeyType !== 'ed25519') {
      throw new InvalidInputError('writer key', [{ path: '', message: 'expected an Ed25519 private key' }]);
    }
    this.#privateKey = privateKey;
    const x = createPublicKey(privateKey).export({ format: 'jwk' }).x ?? '';
    this.publicKey = Buffer.from(x, 'base64url').toString('base64');
  }

  /** A signer for the key a 32-byte seed derives (RFC 8032 §5.1.5). @throws {InvalidInputError} for a seed not of 32 bytes */
  static fromSeed(keyId: string, seed: Uint8Array): LocalWriterSigner {
    if (!(seed instanceof Uint8Array) || seed.byteLength !== 32) {
      throw new InvalidInputError('writer key seed', [{ path: '', message: 'expected 32 bytes' }]);
    }
    const der = Buffer.concat([PKCS8_ED25519_PREFIX, seed]);
    const key = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
    der.fill(0);
    return new LocalWriterSigner(keyId, key);
  }

  /** A signer for a PKCS #8 PEM Ed25519 private key. @throws {InvalidInputError} when the text is not one */
  static fromPem(keyId: string, pem: string): LocalWriterSigner {
    let key: KeyObject;
    try {
      key = createPrivateKey({ key: pem, format: 'pem' });
    } catch (error) {
      throw new InvalidInputError('writer key', [
        { path: '', message: `not a PEM private key: ${(error as Error).message}` },
      ]);
    }
    return new LocalWriterSigner(keyId, key);
  }

  /** A fresh random key, with its PKCS #8 PEM text (to store, mode 0600). */
  static generate(keyId: string): { signer: LocalWriterSigner; pem: string } {
    const { privateKey } = generateKeyPairSync('ed25519');
    return {
      signer: new LocalWriterSigner(keyId, privateKey),
      pem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    };
  }

  async sign(digest: Uint8Array): Promise<Uint8Array> {
    return Uint8Array.from(sign(null, digest, this.#privateKey));
  }
}
