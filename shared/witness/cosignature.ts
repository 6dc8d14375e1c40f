import { InvalidInputError, NoteFormatError } from '../errors';
import { ED25519_SIGNATURE_BYTES } from '../log/note-key';
import type { NoteSignature } from '../log/signed-note';
import { verifyEd25519 } from '../log/verify-ed25519';
import { type CosignerKey, claimsCosigner } from './cosigner-key';

/**
 * C2SP tlog-cosignature `cosignature/v1` (Ed25519): a note signature line by a witness over
 * `cosignature/v1\ntime <t>\n<checkpoint body>`, whose signature bytes are the 8-byte
 * big-endian POSIX time `t` followed by the 64-byte Ed25519 signature. It states that, as of
 * `t`, this was the largest consistent tree the witness had seen for the origin
 * (docs/witness.md, "Cosignatures").
 */

/** Bytes of a `cosignature/v1` Ed25519 signature: 8 of timestamp + 64 of signature. */
export const COSIGNATURE_V1_BYTES = 8 + ED25519_SIGNATURE_BYTES;

const encoder = new TextEncoder();

function requireTimestamp(timestamp: number): void {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new InvalidInputError('cosignature', [
      { path: 'timestamp', message: 'expected POSIX seconds, a safe non-negative integer' },
    ]);
  }
}

function requireBody(body: string): void {
  if (typeof body !== 'string' || body.length === 0 || !body.endsWith('\n')) {
    throw new NoteFormatError('text', 'a checkpoint body is non-empty and ends with a newline');
  }
}

/**
 * The message a `cosignature/v1` signs: `cosignature/v1\n`, `time <timestamp>\n` (decimal, no
 * leading zeros), then the checkpoint body, final newline included, no signature lines.
 * @param body - the checkpoint note's text (every line, extension lines included)
 * @param timestamp - POSIX seconds
 * @throws {InvalidInputError} for a timestamp that is not a safe non-negative integer
 * @throws {NoteFormatError} for an empty body or one without its final newline
 */
export function cosignatureMessage(body: string, timestamp: number): Uint8Array {
  requireBody(body);
  requireTimestamp(timestamp);
  return encoder.encode(`cosignature/v1\ntime ${timestamp}\n${body}`);
}

/**
 * The timestamp (POSIX seconds) of a valid `cosignature/v1` by `key` over `body`, or `null` when
 * the line is not a valid cosignature by that key: another name or key ID, not 72 bytes, a
 * timestamp beyond 2^53 − 1, or a signature that does not verify. Never throws.
 */
export function verifyCosignature(body: string, sig: NoteSignature, key: CosignerKey): number | null {
  if (!claimsCosigner(sig, key) || sig.signature.byteLength !== COSIGNATURE_V1_BYTES) return null;
  const view = new DataView(sig.signature.buffer, sig.signature.byteOffset, sig.signature.byteLength);
  const timestamp = view.getBigUint64(0, false);
  if (timestamp > BigInt(Number.MAX_SAFE_INTEGER)) return null;
  let message: Uint8Array;
  try {
    message = cosignatureMessage(body, Number(timestamp));
  } catch {
    return null;
  }
  return verifyEd25519(key.publicKey, message, sig.signature.subarray(8)) ? Number(timestamp) : null;
}
