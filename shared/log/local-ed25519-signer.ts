import { createPrivateKey, createPublicKey, type KeyObject, sign } from 'node:crypto';
import { InvalidInputError } from '../errors';
import type { NoteSigner } from '../ports/note-signer';
import { ED25519_PUBLIC_KEY_BYTES, isValidKeyName } from './note-key';

/** Length of an Ed25519 private key seed (RFC 8032 §5.1.5). */
export const ED25519_SEED_BYTES = 32;

/** DER prefix of a PKCS #8 Ed25519 private key (RFC 8410 §7); the 32-byte seed follows. */
const PKCS8_ED25519_PREFIX = Uint8Array.from([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);

/**
 * {@link NoteSigner} over an Ed25519 key derived from a 32-byte seed with node:crypto, for tests,
 * the demo and benchmarks. Ed25519 is deterministic, so one seed and text always give the same
 * note (which the test vectors rely on). The seed is held only inside a `KeyObject`.
 *
 * @example
 * const signer = new LocalEd25519Signer('reseal/test-stack', seed);
 * const note = await signNote(checkpointBody(checkpoint), signer);
 */
export class LocalEd25519Signer implements NoteSigner {
  readonly keyName: string;
  readonly #privateKey: KeyObject;
  readonly #publicKey: Uint8Array;

  /**
   * @throws {InvalidInputError} for an invalid key name or a seed that is not 32 bytes
   */
  constructor(keyName: string, seed: Uint8Array) {
    if (!isValidKeyName(keyName)) {
      throw new InvalidInputError('note key name', [
        { path: '', message: 'expected a non-empty name without white space, "+" or control characters' },
      ]);
    }
    if (!(seed instanceof Uint8Array) || seed.byteLength !== ED25519_SEED_BYTES) {
      throw new InvalidInputError('Ed25519 seed', [{ path: '', message: `expected ${ED25519_SEED_BYTES} bytes` }]);
    }
    this.keyName = keyName;
    const der = new Uint8Array(PKCS8_ED25519_PREFIX.byteLength + ED25519_SEED_BYTES);
    der.set(PKCS8_ED25519_PREFIX);
    der.set(seed, PKCS8_ED25519_PREFIX.byteLength);
    this.#privateKey = createPrivateKey({ key: Buffer.from(der), format: 'der', type: 'pkcs8' });
    der.fill(0);
    const x = createPublicKey(this.#privateKey).export({ format: 'jwk' }).x ?? '';
    this.#publicKey = Uint8Array.from(Buffer.from(x, 'base64url'));
    if (this.#publicKey.byteLength !== ED25519_PUBLIC_KEY_BYTES)
      throw new Error('unexpected Ed25519 public key length');
  }

  /** The raw 32-byte public key (a copy). */
  async publicKey(): Promise<Uint8Array> {
    return this.#publicKey.slice();
  }

  /** Pure Ed25519 (RFC 8032 §5.1.6) signature of `message`: 64 bytes. */
  async sign(message: Uint8Array): Promise<Uint8Array> {
    return Uint8Array.from(sign(null, message, this.#privateKey));
  }
}
