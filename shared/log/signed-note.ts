import { InvalidInputError, NoteFormatError, NoteVerificationError } from '../errors';
import type { NoteSigner } from '../ports/note-signer';
import {
  assertVerifierKey,
  ED25519_PUBLIC_KEY_BYTES,
  ED25519_SIGNATURE_BYTES,
  ed25519KeyHash,
  isValidKeyName,
  KEY_HASH_BYTES,
  type NoteVerifierKey,
} from './note-key';
import { decodeStrictBase64, encodeBase64 } from './strict-base64';
import { verifyEd25519 } from './verify-ed25519';

/**
 * C2SP signed-note: a text ending in a newline, a blank line, then one line per signature,
 * `— <key name> <base64(key hash || signature)>` (U+2014 em dash). Read strictly, so a note has
 * one spelling, and bounded, so a hostile note costs little to refuse.
 */

/** Largest note accepted or written, in UTF-8 bytes (C2SP asks verifiers for a bound). */
export const MAX_NOTE_BYTES = 16 * 1024;
/** Most signature lines accepted or written (C2SP requires at least 16 be accepted). */
export const MAX_NOTE_SIGNATURES = 100;

/** One signature line of a note. */
export interface NoteSignature {
  /** Key name. */
  readonly name: string;
  /** 4-byte key hash (key ID), big-endian as written. */
  readonly keyHash: Uint8Array;
  /** Signature bytes (64 for Ed25519; other algorithms differ). */
  readonly signature: Uint8Array;
}

const EM_DASH_SPACE = '\u2014 ';
const encoder = new TextEncoder();

/** The first ASCII control character other than newline (C2SP forbids them anywhere in a note), if any. */
function controlProblem(text: string): string | undefined {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x20 && code !== 0x0a) return `control character U+${code.toString(16).padStart(4, '0')} at offset ${i}`;
  }
  return undefined;
}

function textProblem(text: unknown): string | undefined {
  if (typeof text !== 'string' || text.length === 0) return 'expected a non-empty string';
  if (!text.endsWith('\n')) return 'the text must end with a newline';
  if (!text.isWellFormed()) return 'the text is not well-formed Unicode (lone surrogate)';
  return controlProblem(text);
}

/**
 * The signed note of `text` with `signatures`, in order: `text + "\n" + "— <name> <base64>\n"…`.
 * @throws {NoteFormatError} unless `text` is a valid note text (non-empty, ends in a newline, no
 *   control characters but newline, well-formed), there are 1–{@link MAX_NOTE_SIGNATURES}
 *   signatures with valid key names, 4-byte key hashes and non-empty signatures, and the note
 *   fits in {@link MAX_NOTE_BYTES}
 */
export function formatSignedNote(text: string, signatures: readonly NoteSignature[]): string {
  const problem = textProblem(text);
  if (problem) throw new NoteFormatError('text', problem);
  if (!Array.isArray(signatures) || signatures.length === 0 || signatures.length > MAX_NOTE_SIGNATURES) {
    throw new NoteFormatError('signatures', `expected 1–${MAX_NOTE_SIGNATURES} signatures`);
  }
  const lines = signatures.map((sig, i) => {
    if (!isValidKeyName(sig?.name)) throw new NoteFormatError(`signatures.${i}.name`, 'invalid key name');
    if (!(sig.keyHash instanceof Uint8Array) || sig.keyHash.byteLength !== KEY_HASH_BYTES) {
      throw new NoteFormatError(`signatures.${i}.keyHash`, `expected ${KEY_HASH_BYTES} bytes`);
    }
    if (!(sig.signature instanceof Uint8Array) || sig.signature.byteLength === 0) {
      throw new NoteFormatError(`signatures.${i}.signature`, 'expected non-empty bytes');
    }
    const blob = new Uint8Array(KEY_HASH_BYTES + sig.signature.byteLength);
    blob.set(sig.keyHash);
    blob.set(sig.signature, KEY_HASH_BYTES);
    return `${EM_DASH_SPACE}${sig.name} ${encodeBase64(blob)}\n`;
  });
  const note = `${text}\n${lines.join('')}`;
  if (Buffer.byteLength(note, 'utf8') > MAX_NOTE_BYTES) {
    throw new NoteFormatError('', `the note exceeds ${MAX_NOTE_BYTES} bytes`);
  }
  return note;
}

/**
 * Splits a signed note into its text and signature lines, without checking any signature. The
 * text ends at the last blank line (C2SP), so it may itself hold blank lines.
 *
 * @throws {NoteFormatError} naming the problem: not a string, over {@link MAX_NOTE_BYTES},
 *   not well-formed, a control character, no blank line, no or over {@link MAX_NOTE_SIGNATURES}
 *   signature lines, a line without the em dash prefix, an invalid key name, base64 that is not
 *   canonical, or fewer than 5 signature bytes (4 of key hash + signature)
 */
export function parseSignedNote(note: string): { text: string; signatures: NoteSignature[] } {
  if (typeof note !== 'string') throw new NoteFormatError('', 'expected a string');
  if (note.length > MAX_NOTE_BYTES || Buffer.byteLength(note, 'utf8') > MAX_NOTE_BYTES) {
    throw new NoteFormatError('', `the note exceeds ${MAX_NOTE_BYTES} bytes`);
  }
  if (!note.isWellFormed()) throw new NoteFormatError('', 'the note is not well-formed Unicode (lone surrogate)');
  const control = controlProblem(note);
  if (control) throw new NoteFormatError('', control);
  const split = note.lastIndexOf('\n\n');
  if (split < 0) throw new NoteFormatError('', 'no blank line separates the text from the signatures');
  const text = note.slice(0, split + 1);
  const block = note.slice(split + 2);
  if (block.length === 0) throw new NoteFormatError('signatures', 'no signature lines after the blank line');
  if (!block.endsWith('\n')) throw new NoteFormatError('signatures', 'the last signature line must end with a newline');
  const lines = block.slice(0, -1).split('\n');
  if (lines.length > MAX_NOTE_SIGNATURES) {
    throw new NoteFormatError('signatures', `more than ${MAX_NOTE_SIGNATURES} signature lines`);
  }
  const signatures = lines.map((line, i): NoteSignature => {
    const path = `signatures.${i}`;
    if (!line.startsWith(EM_DASH_SPACE)) throw new NoteFormatError(path, 'expected "— " (U+2014, space) at line start');
    const parts = line.slice(EM_DASH_SPACE.length).split(' ');
    if (parts.length !== 2) throw new NoteFormatError(path, 'expected "— <key name> <base64 signature>"');
    const [name, encoded] = parts as [string, string];
    if (!isValidKeyName(name)) throw new NoteFormatError(path, 'invalid key name');
    const blob = decodeStrictBase64(encoded);
    if (blob === undefined) throw new NoteFormatError(path, 'signature is not canonical standard base64');
    if (blob.byteLength <= KEY_HASH_BYTES) throw new NoteFormatError(path, 'signature shorter than 5 bytes');
    return { name, keyHash: blob.slice(0, KEY_HASH_BYTES), signature: blob.slice(KEY_HASH_BYTES) };
  });
  return { text, signatures };
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b) === 0;

/**
 * Verifies that `note` carries a valid Ed25519 signature by `key` (matching name and key hash)
 * over its text, and returns the text. Signatures by other keys are ignored, even when they
 * share the name or the key hash but not both (C2SP signed-note "Signatures").
 *
 * @throws {NoteFormatError} when the note is malformed
 * @throws {InvalidInputError} when `key` is not self-consistent
 * @throws {NoteVerificationError} when no signature line matches `key`, or one that matches does
 *   not verify (C2SP: a failing signature from a known key rejects the whole note)
 */
export function verifyNote(note: string, key: NoteVerifierKey): string {
  const { text, signatures } = parseSignedNote(note);
  assertVerifierKey(key);
  const mine = signatures.filter((sig) => sig.name === key.name && sameBytes(sig.keyHash, key.keyHash));
  if (mine.length === 0) throw new NoteVerificationError(key.name, 'no signature line by this key (name and key hash)');
  const message = encoder.encode(text);
  if (!mine.every((sig) => verifyEd25519(key.publicKey, message, sig.signature))) {
    throw new NoteVerificationError(key.name, 'a signature line by this key does not verify');
  }
  return text;
}

/**
 * Signs `text` with `signer` and returns the signed note. The key hash comes from
 * `signer.publicKey()`, and the signature is checked under that key before it is written, so a
 * misconfigured signer (e.g. Ed25519ph instead of pure Ed25519) fails here, not at an auditor.
 *
 * @throws {NoteFormatError} when `text` is not a valid note text or `signer.keyName` is invalid
 * @throws {InvalidInputError} when the signer's public key or signature has the wrong length
 * @throws {NoteVerificationError} when the signature does not verify under the signer's key
 */
export async function signNote(text: string, signer: NoteSigner): Promise<string> {
  const problem = textProblem(text);
  if (problem) throw new NoteFormatError('text', problem);
  if (!isValidKeyName(signer.keyName)) throw new NoteFormatError('signatures.0.name', 'invalid key name');
  const publicKey = await signer.publicKey();
  if (!(publicKey instanceof Uint8Array) || publicKey.byteLength !== ED25519_PUBLIC_KEY_BYTES) {
    throw new InvalidInputError('note signer', [
      { path: 'publicKey', message: `expected ${ED25519_PUBLIC_KEY_BYTES} raw bytes` },
    ]);
  }
  const message = encoder.encode(text);
  const signature = await signer.sign(message);
  if (!(signature instanceof Uint8Array) || signature.byteLength !== ED25519_SIGNATURE_BYTES) {
    throw new InvalidInputError('note signer', [
      { path: 'signature', message: `expected ${ED25519_SIGNATURE_BYTES} bytes` },
    ]);
  }
  if (!verifyEd25519(publicKey, message, signature)) {
    throw new NoteVerificationError(
      signer.keyName,
      'the signer returned a signature that does not verify under its public key',
    );
  }
  return formatSignedNote(text, [
    { name: signer.keyName, keyHash: ed25519KeyHash(signer.keyName, publicKey), signature },
  ]);
}
