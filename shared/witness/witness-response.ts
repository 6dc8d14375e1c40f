import { formatSignatureLine } from '../log/signature-line';
import type { NoteSignature } from '../log/signed-note';

/**
 * The answers of C2SP tlog-witness `add-checkpoint`, as plain values a handler sends as they are
 * (docs/witness.md, "add-checkpoint"): 200 with cosignature lines, 409 with the witness's size
 * (`text/x.tlog.size`), 400, 403, 404, 422 with a one-line reason.
 */

/** HTTP status codes of `add-checkpoint`. */
export const WitnessStatus = {
  /** Cosigned: the body is the cosignature lines. */
  COSIGNED: 200,
  /** The request is malformed, or the old size is larger than the checkpoint's. */
  BAD_REQUEST: 400,
  /** No signature by a trusted key of the origin verifies. */
  FORBIDDEN: 403,
  /** The origin is not a log this witness knows. */
  UNKNOWN_ORIGIN: 404,
  /** The old size is not the witness's, or the same size carries another root. */
  CONFLICT: 409,
  /** The consistency proof does not verify from the witness's state. */
  BAD_PROOF: 422,
} as const;
/** One of {@link WitnessStatus}. */
export type WitnessStatus = (typeof WitnessStatus)[keyof typeof WitnessStatus];

/** Content type of a 409 body (C2SP tlog-witness). */
export const TLOG_SIZE_CONTENT_TYPE = 'text/x.tlog.size';
const TEXT = 'text/plain; charset=utf-8';

/** An HTTP answer of the witness. */
export interface WitnessResponse {
  readonly status: WitnessStatus;
  readonly contentType: string;
  readonly body: string;
}

/** 200: one signature line per cosignature. */
export function cosignedResponse(cosignatures: readonly NoteSignature[]): WitnessResponse {
  return { status: WitnessStatus.COSIGNED, contentType: TEXT, body: cosignatures.map(formatSignatureLine).join('') };
}

/** 409: the size of the latest checkpoint the witness cosigned for the origin (0: none), and a newline. */
export function conflictResponse(currentSize: number): WitnessResponse {
  return { status: WitnessStatus.CONFLICT, contentType: TLOG_SIZE_CONTENT_TYPE, body: `${currentSize}\n` };
}

/** 400, 403, 404 or 422 with a one-line reason (no control characters). */
export function refusalResponse(status: Exclude<WitnessStatus, 200 | 409>, reason: string): WitnessResponse {
  return { status, contentType: TEXT, body: `${reason.replace(/\p{Cc}/gu, ' ')}\n` };
}
