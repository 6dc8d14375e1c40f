import { z } from 'zod';
import { parseStrictJson } from '../canonical/strict-json';
import { InvalidInputError, WitnessRequestFormatError } from '../errors';
import { MAX_NOTE_BYTES } from '../log/signed-note';
import { decodeStrictBase64, encodeBase64 } from '../log/strict-base64';
import { MAX_PROOF_LINES } from './add-checkpoint-request';

/** Path of the witness's re-anchor request, beside `add-checkpoint` (docs/witness.md, "re-anchor"). */
export const RE_ANCHOR_PATH = '/re-anchor';
/** Largest re-anchor request body, bytes: two notes and a proof. */
export const MAX_RE_ANCHOR_REQUEST_BYTES = 2 * MAX_NOTE_BYTES + 4096;

/**
 * A re-anchor request (docs/witness.md, "re-anchor"): the statement note (signed by a recovery key
 * and the log key), the log's signed checkpoint of the re-anchored tree (the restored head and the
 * re-anchor leaf), and the RFC 9162 consistency proof from the statement's restored head to it.
 */
export interface ReAnchorRequest {
  readonly statement: string;
  readonly checkpoint: string;
  readonly proof: readonly Uint8Array[];
}

const Wire = z
  .object({
    statement: z.string().min(1).max(MAX_NOTE_BYTES),
    checkpoint: z.string().min(1).max(MAX_NOTE_BYTES),
    proof: z.array(z.string()).max(MAX_PROOF_LINES),
  })
  .strict();

/**
 * Reads a re-anchor request body: strict JSON `{ "statement", "checkpoint", "proof": [base64…] }`,
 * each proof hash canonical base64 of 32 bytes. The notes are checked by the decision, not here.
 *
 * @throws {WitnessRequestFormatError} (HTTP 400) naming what is wrong
 */
export function parseReAnchorRequest(body: string): ReAnchorRequest {
  if (typeof body !== 'string' || Buffer.byteLength(body, 'utf8') > MAX_RE_ANCHOR_REQUEST_BYTES) {
    throw new WitnessRequestFormatError('', `expected a body of at most ${MAX_RE_ANCHOR_REQUEST_BYTES} bytes`);
  }
  let value: unknown;
  try {
    value = parseStrictJson(body, 're-anchor request');
  } catch (error) {
    if (error instanceof InvalidInputError) throw new WitnessRequestFormatError('', error.message, { cause: error });
    throw error;
  }
  const parsed = Wire.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new WitnessRequestFormatError(issue?.path.join('.') ?? '', issue?.message ?? 'malformed');
  }
  const proof = parsed.data.proof.map((line, i) => {
    const hash = decodeStrictBase64(line);
    if (hash === undefined || hash.byteLength !== 32) {
      throw new WitnessRequestFormatError(`proof.${i}`, 'expected canonical base64 of 32 bytes');
    }
    return hash;
  });
  return { statement: parsed.data.statement, checkpoint: parsed.data.checkpoint, proof };
}

/** The request body {@link parseReAnchorRequest} reads. */
export function formatReAnchorRequest(request: ReAnchorRequest): string {
  return JSON.stringify({
    statement: request.statement,
    checkpoint: request.checkpoint,
    proof: request.proof.map(encodeBase64),
  });
}
