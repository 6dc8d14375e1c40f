import { randomBytes } from 'node:crypto';
import { InvalidInputError } from '../errors';
import { ED25519_SEED_BYTES, LocalEd25519Signer } from './local-ed25519-signer';
import { ED25519_SIGNATURE_TYPE, ed25519KeyHash, formatVerifierKey, isValidKeyName, noteVerifierKey } from './note-key';
import { decodeStrictBase64, encodeBase64 } from './strict-base64';

const PREFIX = 'PRIVATE+KEY+';

/**
 * A signed-note signer key as Go's `golang.org/x/mod/sumdb/note` writes it:
 * `PRIVATE+KEY+<name>+<8 hex of key hash>+<base64(0x01 || 32-byte seed)>`. The operator's recovery
 * key is kept in this form (docs/deployment-log.md, "Re-anchor"), so the same file works with the
 * Go tooling of the field.
 *
 * @throws {InvalidInputError} for an invalid name or a seed that is not 32 bytes
 */
export async function formatNoteSignerKey(name: string, seed: Uint8Array): Promise<string> {
  const signer = new LocalEd25519Signer(name, seed);
  const keyHash = ed25519KeyHash(name, await signer.publicKey());
  return `${PREFIX}${name}+${Buffer.from(keyHash).toString('hex')}+${encodeBase64(Uint8Array.from([ED25519_SIGNATURE_TYPE, ...seed]))}`;
}

/**
 * Reads a signer key ({@link formatNoteSignerKey}, surrounding white space ignored) into a
 * signer, checking that its key hash matches its name and key.
 * @throws {InvalidInputError} naming what is wrong (never the seed)
 */
export async function parseNoteSignerKey(text: string): Promise<LocalEd25519Signer> {
  const fail = (message: string) => new InvalidInputError('note signer key', [{ path: '', message }]);
  const trimmed = typeof text === 'string' ? text.trim() : '';
  if (!trimmed.startsWith(PREFIX)) throw fail(`expected "${PREFIX}<name>+<hash>+<key>"`);
  const parts = trimmed.slice(PREFIX.length).split('+');
  if (parts.length !== 3) throw fail('expected three "+"-separated parts after the prefix');
  const [name, hashHex, encoded] = parts as [string, string, string];
  if (!isValidKeyName(name)) throw fail('invalid key name');
  const blob = decodeStrictBase64(encoded);
  if (blob === undefined || blob.byteLength !== ED25519_SEED_BYTES + 1 || blob[0] !== ED25519_SIGNATURE_TYPE) {
    throw fail('expected canonical base64 of the Ed25519 type byte and a 32-byte seed');
  }
  const signer = new LocalEd25519Signer(name, blob.slice(1));
  blob.fill(0);
  if (Buffer.from(ed25519KeyHash(name, await signer.publicKey())).toString('hex') !== hashHex) {
    throw fail('the key hash does not match the name and key');
  }
  return signer;
}

/** A new signer key (random seed) and its vkey, for `scripts/re-anchor.ts keygen`. */
export async function generateNoteSignerKey(name: string): Promise<{ readonly skey: string; readonly vkey: string }> {
  const seed = randomBytes(ED25519_SEED_BYTES);
  try {
    const skey = await formatNoteSignerKey(name, seed);
    const vkey = formatVerifierKey(noteVerifierKey(name, await new LocalEd25519Signer(name, seed).publicKey()));
    return { skey, vkey };
  } finally {
    seed.fill(0);
  }
}
