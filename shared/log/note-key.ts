import { InvalidInputError } from '../errors';
import {
  ED25519_PUBLIC_KEY_BYTES,
  ed25519KeyId,
  formatEd25519Vkey,
  KEY_HASH_BYTES,
  parseEd25519Vkey,
  type VkeyKind,
} from './ed25519-vkey';

export { ED25519_PUBLIC_KEY_BYTES, KEY_HASH_BYTES };

/**
 * Ed25519 keys of C2SP signed-note: key names, the 4-byte key hash that tells a verifier which
 * key a signature line claims, and the verifier key string (`<name>+<hash>+<key>`, the
 * golang.org/x/mod/sumdb/note "vkey" format) that operators hand to auditors.
 */

/** Signature type byte of Ed25519 in C2SP signed-note ("Signature types"). */
export const ED25519_SIGNATURE_TYPE = 0x01;
/** Length of an Ed25519 signature (RFC 8032 §5.1.6). */
export const ED25519_SIGNATURE_BYTES = 64;

/** An Ed25519 key that can verify notes. */
export interface NoteVerifierKey {
  /** Key name, as in signature lines. */
  readonly name: string;
  /** {@link ed25519KeyHash} of name and key: 4 bytes. */
  readonly keyHash: Uint8Array;
  /** Raw 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
}

// Unicode white space as JavaScript's \s knows it, plus U+0085 (NEL), which Go's unicode.IsSpace
// also counts: a name one implementation accepts must not be refused by another.
const NAME_FORBIDDEN = /[\s\u0085+\p{Cc}]/u;

/**
 * Whether `name` is a valid note key name (C2SP signed-note "Format"): non-empty, well-formed
 * Unicode, no white space, no `+` (the vkey separator), no control characters.
 */
export function isValidKeyName(name: unknown): name is string {
  return typeof name === 'string' && name.length > 0 && name.isWellFormed() && !NAME_FORBIDDEN.test(name);
}

function requireKeyName(name: unknown): asserts name is string {
  if (!isValidKeyName(name)) {
    throw new InvalidInputError('note key name', [
      { path: '', message: 'expected a non-empty name without white space, "+" or control characters' },
    ]);
  }
}

function requirePublicKey(publicKey: unknown): asserts publicKey is Uint8Array {
  if (!(publicKey instanceof Uint8Array) || publicKey.byteLength !== ED25519_PUBLIC_KEY_BYTES) {
    throw new InvalidInputError('Ed25519 public key', [
      { path: '', message: `expected ${ED25519_PUBLIC_KEY_BYTES} raw bytes` },
    ]);
  }
}

/**
 * The C2SP signed-note key hash of an Ed25519 key: the first 4 bytes of
 * `SHA-256(UTF-8(name) || 0x0A || 0x01 || publicKey)`. It only names the key (it is not a
 * fingerprint to trust): a verifier always holds the full public key.
 *
 * @throws {InvalidInputError} for an invalid name or a key that is not 32 bytes
 */
export function ed25519KeyHash(name: string, publicKey: Uint8Array): Uint8Array {
  requireKeyName(name);
  requirePublicKey(publicKey);
  return ed25519KeyId(name, ED25519_SIGNATURE_TYPE, publicKey);
}

/**
 * The verifier key of `name` and a raw Ed25519 public key (copied).
 * @throws {InvalidInputError} for an invalid name or a key that is not 32 bytes
 */
export function noteVerifierKey(name: string, publicKey: Uint8Array): NoteVerifierKey {
  return { name, keyHash: ed25519KeyHash(name, publicKey), publicKey: Uint8Array.from(publicKey) };
}

/**
 * Checks that `key` is self-consistent (valid name, 32-byte key, key hash derived from both), so
 * a hand-built key cannot claim another key's hash.
 * @throws {InvalidInputError} naming the field that is wrong
 */
export function assertVerifierKey(key: NoteVerifierKey): void {
  if (typeof key !== 'object' || key === null) {
    throw new InvalidInputError('note verifier key', [{ path: '', message: 'expected an object' }]);
  }
  const expected = ed25519KeyHash(key.name, key.publicKey);
  if (!(key.keyHash instanceof Uint8Array) || Buffer.compare(expected, key.keyHash) !== 0) {
    throw new InvalidInputError('note verifier key', [
      { path: 'keyHash', message: 'is not the key hash of this name and public key' },
    ]);
  }
}

/**
 * `<name>+<8 lowercase hex of keyHash>+<base64(0x01 || publicKey)>`, the vkey format of C2SP
 * signed-note "Verifier keys" (e.g. `PeterNeumann+c74f20a3+ARpc2QcU…`).
 * @throws {InvalidInputError} when `key` is not self-consistent
 */
export function formatVerifierKey(key: NoteVerifierKey): string {
  assertVerifierKey(key);
  return formatEd25519Vkey(NOTE_VKEY, key);
}

/** The signed-note vkey (type 0x01) and the words of its messages. */
const NOTE_VKEY: VkeyKind = {
  type: ED25519_SIGNATURE_TYPE,
  what: 'note verifier key',
  idWord: 'key hash',
  wrongType: (type) => `unsupported signature type ${String(type)}`,
};

/**
 * Reads a vkey string ({@link formatVerifierKey}). Strict: lowercase hex, canonical base64, the
 * Ed25519 type byte, a 32-byte key, and a key hash that matches name and key.
 * @throws {InvalidInputError} naming the part that is wrong (`name`, `keyHash`, `key`)
 */
export function parseVerifierKey(text: string): NoteVerifierKey {
  return parseEd25519Vkey(text, NOTE_VKEY, isValidKeyName, ed25519KeyHash);
}
