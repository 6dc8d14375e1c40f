import { WitnessRequestFormatError } from '../errors';
import { HASH_BYTES } from '../log/merkle-hash';
import { MAX_NOTE_BYTES } from '../log/signed-note';
import { decodeStrictBase64, encodeBase64 } from '../log/strict-base64';

/**
 * The body of a C2SP tlog-witness `add-checkpoint` request: `old <size>\n`, zero to 63
 * consistency proof lines (base64 of one 32-byte hash each), a blank line, then the checkpoint
 * as a signed note (docs/witness.md, "add-checkpoint").
 */

/** Most consistency proof lines a request may carry (C2SP tlog-witness). */
export const MAX_PROOF_LINES = 63;
/** Largest request body accepted, in UTF-8 bytes: the largest note plus a full proof. */
export const MAX_REQUEST_BYTES = MAX_NOTE_BYTES + 4096;

/** A parsed `add-checkpoint` request; the note is not verified yet. */
export interface AddCheckpointRequest {
  /** Size of the checkpoint the caller believes the witness last cosigned (0: none). */
  readonly oldSize: number;
  /** RFC 9162 consistency proof from `oldSize` to the checkpoint's size. */
  readonly proof: readonly Uint8Array[];
  /** The checkpoint's signed note, as sent. */
  readonly note: string;
}

const DECIMAL = /^(?:0|[1-9][0-9]{0,15})$/;

/**
 * Reads an `add-checkpoint` body strictly. It checks the framing only: the note's signatures,
 * its origin and the proof are the witness's decision (`admitCheckpoint`, `decideAddCheckpoint`).
 *
 * @throws {WitnessRequestFormatError} (HTTP 400) for a body over {@link MAX_REQUEST_BYTES}, no
 *   `old <size>` first line (decimal, no leading zeros, at most 2^53 − 1), a proof line that is
 *   not canonical base64 of 32 bytes, more than {@link MAX_PROOF_LINES} of them, a proof with
 *   old size 0, or no blank line before the note
 */
export function parseAddCheckpointRequest(body: string): AddCheckpointRequest {
  if (typeof body !== 'string') throw new WitnessRequestFormatError('', 'expected a text body');
  if (body.length > MAX_REQUEST_BYTES || Buffer.byteLength(body, 'utf8') > MAX_REQUEST_BYTES) {
    throw new WitnessRequestFormatError('', `the body exceeds ${MAX_REQUEST_BYTES} bytes`);
  }
  const split = body.indexOf('\n\n');
  if (split < 0) throw new WitnessRequestFormatError('', 'no blank line before the checkpoint');
  const [oldLine, ...proofLines] = body.slice(0, split).split('\n') as [string, ...string[]];
  const note = body.slice(split + 2);
  if (!oldLine.startsWith('old '))
    throw new WitnessRequestFormatError('old', 'expected "old <size>" as the first line');
  const sizeText = oldLine.slice(4);
  if (!DECIMAL.test(sizeText))
    throw new WitnessRequestFormatError('old', 'expected a decimal size without leading zeros');
  const oldSize = Number(sizeText);
  if (!Number.isSafeInteger(oldSize)) throw new WitnessRequestFormatError('old', 'larger than 2^53 − 1');
  if (proofLines.length > MAX_PROOF_LINES) {
    throw new WitnessRequestFormatError('proof', `more than ${MAX_PROOF_LINES} consistency proof lines`);
  }
  if (oldSize === 0 && proofLines.length > 0) {
    throw new WitnessRequestFormatError('proof', 'the proof must be empty when the old size is 0');
  }
  const proof = proofLines.map((line, i) => {
    const hash = decodeStrictBase64(line);
    if (hash === undefined || hash.byteLength !== HASH_BYTES) {
      throw new WitnessRequestFormatError(`proof.${i}`, `expected canonical base64 of ${HASH_BYTES} bytes`);
    }
    return hash;
  });
  if (note.length === 0) throw new WitnessRequestFormatError('checkpoint', 'no checkpoint after the blank line');
  return { oldSize, proof, note };
}

/**
 * The body of an `add-checkpoint` request (what a log, or the integrator, sends).
 * @throws {WitnessRequestFormatError} when the result would not read back as `request`
 */
export function formatAddCheckpointRequest(request: AddCheckpointRequest): string {
  const lines = [`old ${request.oldSize}`, ...request.proof.map((hash) => encodeBase64(hash))];
  const body = `${lines.join('\n')}\n\n${request.note}`;
  parseAddCheckpointRequest(body);
  return body;
}
