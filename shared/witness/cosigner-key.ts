import { InvalidInputError } from '../errors';
import {
  ED25519_PUBLIC_KEY_BYTES,
  ed25519KeyId,
  formatEd25519Vkey,
  parseEd25519Vkey,
  type VkeyKind,
} from '../log/ed25519-vkey';
import { isValidKeyName } from '../log/note-key';
import type { NoteSignature } from '../log/signed-note';

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
  return ed25519KeyId(name, COSIGNATURE_V1_TYPE, publicKey);
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
  return formatEd25519Vkey(COSIGNER_VKEY, key);
}

/** The cosigner vkey (type 0x04) and the words of its messages. */
const COSIGNER_VKEY: VkeyKind = {
  type: COSIGNATURE_V1_TYPE,
  what: 'cosigner vkey',
  idWord: 'key ID',
  wrongType: (type) => `signature type ${String(type)} is not cosignature/v1 (4)`,
};

/**
 * Reads a cosigner vkey ({@link formatCosignerKey}) strictly: lowercase hex, canonical base64,
 * signature type 0x04, a 32-byte key and a key ID that matches name and key. A signed-note
 * (type 0x01) vkey is refused, so a log key is never taken for a witness key.
 * @throws {InvalidInputError} naming the part that is wrong (`name`, `keyHash`, `key`)
 */
export function parseCosignerKey(text: string): CosignerKey {
  return parseEd25519Vkey(text, COSIGNER_VKEY, isValidKeyName, cosignerKeyHash);
}

/** Whether a signature line claims `key`: the same name and the same cosigner key ID. */
export function claimsCosigner(sig: NoteSignature, key: CosignerKey): boolean {
  return sig.name === key.name && Buffer.compare(sig.keyHash, key.keyHash) === 0;
}
