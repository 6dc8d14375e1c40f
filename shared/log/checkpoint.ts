import { CheckpointFormatError } from '../errors';
import { HASH_BYTES } from './merkle-hash';
import { decodeStrictBase64, encodeBase64 } from './strict-base64';

/**
 * C2SP tlog-checkpoint bodies: the tree head of a log at one size, as the text a signed note
 * signs. Reseal writes exactly three lines and no extension lines (C2SP: not recommended, as
 * monitors cannot audit them), and reads back only what it writes.
 */

/** A log's tree head at one size. */
export interface Checkpoint {
  /** Log identity, first line of the body: for Reseal, `reseal/<stackName>/<lineageId>`. */
  readonly origin: string;
  /** Number of leaves (records); safe non-negative integer. */
  readonly size: number;
  /** RFC 9162 root hash of the tree of `size` leaves: 32 bytes. */
  readonly rootHash: Uint8Array;
}

const CONTROL = /\p{Cc}/u;
const DECIMAL = /^(?:0|[1-9][0-9]*)$/;

function originProblem(origin: unknown): string | undefined {
  if (typeof origin !== 'string' || origin.length === 0) return 'expected a non-empty string';
  if (!origin.isWellFormed()) return 'not well-formed Unicode (lone surrogate)';
  if (CONTROL.test(origin)) return 'holds a control character (newlines included)';
  return undefined;
}

/**
 * The checkpoint body `<origin>\n<size in decimal>\n<standard base64 of the root>\n`.
 * @throws {CheckpointFormatError} when the origin is empty, not well-formed or holds a control
 *   character, the size is not a safe non-negative integer, or the root is not 32 bytes
 */
export function checkpointBody(c: Checkpoint): string {
  const problem = originProblem(c.origin);
  if (problem) throw new CheckpointFormatError('origin', problem);
  if (!Number.isSafeInteger(c.size) || c.size < 0) {
    throw new CheckpointFormatError('size', 'expected a safe non-negative integer');
  }
  if (!(c.rootHash instanceof Uint8Array) || c.rootHash.byteLength !== HASH_BYTES) {
    throw new CheckpointFormatError('rootHash', `expected ${HASH_BYTES} bytes`);
  }
  return `${c.origin}\n${c.size}\n${encodeBase64(c.rootHash)}\n`;
}

/**
 * Reads a checkpoint body strictly: exactly three newline-terminated lines, a non-empty origin
 * without control characters, a decimal size without leading zeros up to 2^53 − 1, and the
 * canonical standard base64 of exactly 32 bytes. Extension lines are refused: Reseal never
 * writes them, so a body with them did not come from Reseal.
 *
 * @throws {CheckpointFormatError} naming the line that is wrong
 */
export function parseCheckpointBody(text: string): Checkpoint {
  if (typeof text !== 'string') throw new CheckpointFormatError('', 'expected a string');
  if (!text.endsWith('\n')) throw new CheckpointFormatError('', 'the body must end with a newline');
  const lines = text.slice(0, -1).split('\n');
  if (lines.length < 3)
    throw new CheckpointFormatError('', `expected 3 lines (origin, size, root), got ${lines.length}`);
  if (lines.length > 3)
    throw new CheckpointFormatError('', 'extension lines are not accepted (Reseal never writes them)');
  const [origin, sizeText, rootText] = lines as [string, string, string];
  const problem = originProblem(origin);
  if (problem) throw new CheckpointFormatError('origin', problem);
  if (!DECIMAL.test(sizeText))
    throw new CheckpointFormatError('size', 'expected a decimal number without leading zeros');
  // Number() rounds beyond 2^53, but never below 2^53 − 1 for a larger value, so the bound check is exact.
  const size = sizeText.length > 16 ? Number.POSITIVE_INFINITY : Number(sizeText);
  if (size > Number.MAX_SAFE_INTEGER) throw new CheckpointFormatError('size', 'larger than 2^53 − 1');
  const rootHash = decodeStrictBase64(rootText);
  if (rootHash === undefined) throw new CheckpointFormatError('rootHash', 'expected canonical standard base64');
  if (rootHash.byteLength !== HASH_BYTES) throw new CheckpointFormatError('rootHash', `expected ${HASH_BYTES} bytes`);
  return { origin, size, rootHash };
}
