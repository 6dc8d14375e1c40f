import { InvalidInputError, NoteVerificationError } from '../errors';
import { type Checkpoint, parseCheckpointBody } from '../log/checkpoint';
import { parseSignedNote, verifyNote } from '../log/signed-note';
import type { AddCheckpointRequest } from './add-checkpoint-request';
import type { TrustedLogs } from './trusted-logs';
import { witnessRefusal as refuse, type WitnessRefusal } from './witness-refusal';
import { WitnessStatus } from './witness-response';

/**
 * The witness's decisions on an `add-checkpoint` request (C2SP tlog-witness), as values: first
 * {@link admitCheckpoint} (is this a checkpoint of a log it trusts, signed by that log?), then,
 * with the state stored for that origin, {@link decideAddCheckpoint} (is it consistent with the
 * last one it cosigned?). Neither signs nor stores: the handler cosigns and saves the new state in
 * one conditional write, so two requests decided on the same state cannot both be cosigned
 * (docs/witness.md, "Decisions").
 */

/** A checkpoint signed by a trusted key of its origin, not yet compared with the witness's state. */
export interface AdmittedCheckpoint {
  readonly kind: 'ADMITTED';
  readonly checkpoint: Checkpoint;
  /** The note's text (the checkpoint body, what a cosignature signs). */
  readonly body: string;
  readonly oldSize: number;
  readonly proof: readonly Uint8Array[];
}

/**
 * Checks a parsed request against the logs the witness trusts: the note parses and its text is a
 * checkpoint (else 400), its origin is known (else 404), a signature line by one of that origin's
 * keys verifies and none by them fails (else 403), and the old size is at most the checkpoint's
 * (else 400). Never throws.
 */
export function admitCheckpoint(
  request: AddCheckpointRequest,
  trusted: TrustedLogs,
): AdmittedCheckpoint | WitnessRefusal {
  let body: string;
  let checkpoint: Checkpoint;
  try {
    body = parseSignedNote(request.note).text;
    checkpoint = parseCheckpointBody(body);
  } catch (error) {
    return refuse(WitnessStatus.BAD_REQUEST, error instanceof Error ? error.message : 'malformed checkpoint');
  }
  const keys = trusted.get(checkpoint.origin) ?? [];
  if (keys.length === 0)
    return refuse(WitnessStatus.UNKNOWN_ORIGIN, `unknown origin ${JSON.stringify(checkpoint.origin)}`);
  const verified = keys.some((key) => {
    try {
      verifyNote(request.note, key);
      return true;
    } catch (error) {
      if (error instanceof NoteVerificationError || error instanceof InvalidInputError) return false;
      throw error;
    }
  });
  if (!verified) return refuse(WitnessStatus.FORBIDDEN, 'no signature by a trusted key of this origin verifies');
  if (request.oldSize > checkpoint.size) {
    return refuse(
      WitnessStatus.BAD_REQUEST,
      `old size ${request.oldSize} is larger than the checkpoint size ${checkpoint.size}`,
    );
  }
  return { kind: 'ADMITTED', checkpoint, body, oldSize: request.oldSize, proof: request.proof };
}
