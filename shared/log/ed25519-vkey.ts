import { createHash } from 'node:crypto';
import { InvalidInputError } from '../errors';
import { decodeStrictBase64, encodeBase64 } from './strict-base64';

/**
 * The vkey envelope shared by C2SP signed-note keys (type 0x01) and tlog-cosignature keys
 * (type 0x04): `<name>+<8 lowercase hex of the key ID>+<base64(type || 32-byte Ed25519 key)>`,
 * and the key ID, the first 4 bytes of `SHA-256(UTF-8(name) || 0x0A || type || key)`. Each kind
 * of key names its own words in messages; the bytes and the checks are the same.
 */

/** Length of a raw Ed25519 public key (RFC 8032 §5.1.5). */
export const ED25519_PUBLIC_KEY_BYTES = 32;
/** Length of a key ID (a note's "key hash"). */
export const KEY_HASH_BYTES = 4;
/** Longest accepted vkey text: ample for a 64-byte name, and it bounds the work on hostile input. */
const MAX_VKEY_CHARS = 1024;

/** A kind of Ed25519 vkey: its signature type byte and the words its messages use. */
export interface VkeyKind {
  /** The signature type byte (0x01 signed-note, 0x04 cosignature/v1). */
  readonly type: number;
  /** What a parse error names, e.g. `note verifier key`. */
  readonly what: string;
  /** What the key ID is called in messages: `key hash` or `key ID`. */
  readonly idWord: string;
  /** The message for a key of another signature type (`undefined` for an empty key). */
  readonly wrongType: (type: number | undefined) => string;
}

/** A parsed vkey, its key ID checked against name and key. */
export interface Ed25519Vkey {
  readonly name: string;
  /** 4 bytes. */
  readonly keyHash: Uint8Array;
  /** Raw 32-byte Ed25519 public key (a copy). */
  readonly publicKey: Uint8Array;
}

/**
 * The key ID of `name` and a raw Ed25519 `publicKey` under signature type `type` (the name and key
 * are checked by the caller, whose messages differ).
 */
export function ed25519KeyId(name: string, type: number, publicKey: Uint8Array): Uint8Array {
  const digest = createHash('sha256').update(name, 'utf8').update(Uint8Array.of(0x0a, type)).update(publicKey).digest();
  return Uint8Array.from(digest.subarray(0, KEY_HASH_BYTES));
}

/** `<name>+<hex key ID>+<base64(type || publicKey)>`, for a key the caller checked. */
export function formatEd25519Vkey(kind: Pick<VkeyKind, 'type'>, key: Ed25519Vkey): string {
  const material = new Uint8Array(1 + ED25519_PUBLIC_KEY_BYTES);
  material[0] = kind.type;
  material.set(key.publicKey, 1);
  return `${key.name}+${Buffer.from(key.keyHash).toString('hex')}+${encodeBase64(material)}`;
}

/**
 * Reads a vkey of `kind` strictly: a valid name (`isValidName`), lowercase hex, canonical base64,
 * the kind's type byte, a 32-byte key, and a key ID that `keyIdOf` derives from name and key.
 * @throws {InvalidInputError} naming the part that is wrong (`name`, `keyHash`, `key`)
 */
export function parseEd25519Vkey(
  text: string,
  kind: VkeyKind,
  isValidName: (name: string) => boolean,
  keyIdOf: (name: string, publicKey: Uint8Array) => Uint8Array,
): Ed25519Vkey {
  const fail = (path: string, message: string) => new InvalidInputError(kind.what, [{ path, message }]);
  if (typeof text !== 'string' || text.length > MAX_VKEY_CHARS) {
    throw fail('', `expected a string of at most ${MAX_VKEY_CHARS} characters`);
  }
  // The name holds no '+', the base64 key may: split at the first two only.
  const first = text.indexOf('+');
  const second = first < 0 ? -1 : text.indexOf('+', first + 1);
  if (second < 0) throw fail('', `expected <name>+<${kind.idWord}>+<key>`);
  const name = text.slice(0, first);
  const hashHex = text.slice(first + 1, second);
  if (!isValidName(name)) throw fail('name', 'expected a non-empty name without white space or control characters');
  if (!/^[0-9a-f]{8}$/.test(hashHex)) throw fail('keyHash', 'expected 8 lowercase hexadecimal characters');
  const material = decodeStrictBase64(text.slice(second + 1));
  if (material === undefined) throw fail('key', 'expected canonical standard base64');
  if (material[0] !== kind.type) throw fail('key', kind.wrongType(material[0]));
  if (material.byteLength !== 1 + ED25519_PUBLIC_KEY_BYTES) throw fail('key', 'expected a 32-byte Ed25519 key');
  const publicKey = Uint8Array.from(material.subarray(1));
  const keyHash = keyIdOf(name, publicKey);
  const actual = Buffer.from(keyHash).toString('hex');
  if (actual !== hashHex) {
    throw fail('keyHash', `${hashHex} is not the ${kind.idWord} of this name and key (expected ${actual})`);
  }
  return { name, keyHash, publicKey };
}
