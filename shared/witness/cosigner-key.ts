import { createHash } from 'node:crypto';
import { InvalidInputError } from '../errors';
import { ED25519_PUBLIC_KEY_BYTES, isValidKeyName, KEY_HASH_BYTES } from '../log/note-key';
import { decodeStrictBase64, encodeBase64 } from '../log/strict-base64';

/**
 * Ed25519 cosigner keys of C2SP tlog-cosignature (`cosignature/v1`): the same Ed25519 public key
 * material as a signed-note key, named with the cosignature signature type byte 0x04, so a
 * cosignature line never passes for a plain note signature of the same key (docs/witness.md,
 * "Cosignatures").
 */

/** Signature type byte of Ed25519 `cosignature/v1` (C2SP tlog-cosignature "Format"). */
export const COSIGNATURE_V1_TYPE = 0x04;

/** An Ed25519 cosigner (witness) key: what a client needs to check its cosignatures. */
export interface CosignerKey {
  /** Cosigner name, as in its signature lines (e.g. `reseal/witness/ResealWitnessStack`). */
  readonly name: string;
  /** {@link cosignerKeyHash} of name and key: 4 bytes. */
  readonly keyHash: Uint8Array;
  /** Raw 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
}

const keyProblem = (what: string, path: string, message: string) => new InvalidInputError(what, [{ path, message }]);

/**
 * The key ID of an Ed25519 cosigner: the first 4 bytes of
 * `SHA-256(UTF-8(name) || 0x0A || 0x04 || publicKey)`.
 * @throws {InvalidInputError} for an invalid key name or a key that is not 32 bytes
 */
export function cosignerKeyHash(name: string, publicKey: Uint8Array): Uint8Array {
  if (!isValidKeyName(name)) {
    throw keyProblem(
      'cosigner key',
      'name',
      'expected a non-empty name without white space, "+" or control characters',
    );
  }
  if (!(publicKey instanceof Uint8Array) || publicKey.byteLength !== ED25519_PUBLIC_KEY_BYTES) {
    throw keyProblem('cosigner key', 'publicKey', `expected ${ED25519_PUBLIC_KEY_BYTES} raw bytes`);
  }
  const digest = createHash('sha256')
    .update(name, 'utf8')
    .update(Uint8Array.of(0x0a, COSIGNATURE_V1_TYPE))
    .update(publicKey)
    .digest();
  return Uint8Array.from(digest.subarray(0, KEY_HASH_BYTES));
}

/**
 * The cosigner key of `name` and a raw Ed25519 public key (copied).
 * @throws {InvalidInputError} as {@link cosignerKeyHash}
 */
export function cosignerKey(name: string, publicKey: Uint8Array): CosignerKey {
  return { name, keyHash: cosignerKeyHash(name, publicKey), publicKey: Uint8Array.from(publicKey) };
}

/**
 * `<name>+<8 lowercase hex of key ID>+<base64(0x04 || publicKey)>`: the vkey of a cosigner
 * (C2SP tlog-cosignature: "vkeys with signature type 0x04"), as a tlog-policy `witness` line
 * carries it.
 * @throws {InvalidInputError} when `key` is not self-consistent
 */
export function formatCosignerKey(key: CosignerKey): string {
  const expected = cosignerKeyHash(key.name, key.publicKey);
  if (!(key.keyHash instanceof Uint8Array) || Buffer.compare(expected, key.keyHash) !== 0) {
    throw keyProblem('cosigner key', 'keyHash', 'is not the cosigner key ID of this name and public key');
  }
  const material = new Uint8Array(1 + ED25519_PUBLIC_KEY_BYTES);
  material[0] = COSIGNATURE_V1_TYPE;
  material.set(key.publicKey, 1);
  return `${key.name}+${Buffer.from(key.keyHash).toString('hex')}+${encodeBase64(material)}`;
}

const MAX_VKEY_CHARS = 1024;

/**
 * Reads a cosigner vkey ({@link formatCosignerKey}) strictly: lowercase hex, canonical base64,
 * signature type 0x04, a 32-byte key and a key ID that matches name and key. A signed-note
 * (type 0x01) vkey is refused, so a log key is never taken for a witness key.
 * @throws {InvalidInputError} naming the part that is wrong (`name`, `keyHash`, `key`)
 */
export function parseCosignerKey(text: string): CosignerKey {
  const fail = (path: string, message: string) => keyProblem('cosigner vkey', path, message);
  if (typeof text !== 'string' || text.length > MAX_VKEY_CHARS) {
    throw fail('', `expected a string of at most ${MAX_VKEY_CHARS} characters`);
  }
  // The name holds no '+', the base64 key may: split at the first two only.
  const first = text.indexOf('+');
  const second = first < 0 ? -1 : text.indexOf('+', first + 1);
  if (second < 0) throw fail('', 'expected <name>+<key ID>+<key>');
  const name = text.slice(0, first);
  const hashHex = text.slice(first + 1, second);
  const encoded = text.slice(second + 1);
  if (!isValidKeyName(name)) throw fail('name', 'expected a non-empty name without white space or control characters');
  if (!/^[0-9a-f]{8}$/.test(hashHex)) throw fail('keyHash', 'expected 8 lowercase hexadecimal characters');
  const material = decodeStrictBase64(encoded);
  if (material === undefined) throw fail('key', 'expected canonical standard base64');
  if (material[0] !== COSIGNATURE_V1_TYPE) {
    throw fail('key', `signature type ${String(material[0])} is not cosignature/v1 (4)`);
  }
  if (material.byteLength !== 1 + ED25519_PUBLIC_KEY_BYTES) throw fail('key', 'expected a 32-byte Ed25519 key');
  const key = cosignerKey(name, material.subarray(1));
  const actual = Buffer.from(key.keyHash).toString('hex');
  if (actual !== hashHex)
    throw fail('keyHash', `${hashHex} is not the key ID of this name and key (expected ${actual})`);
  return key;
}
