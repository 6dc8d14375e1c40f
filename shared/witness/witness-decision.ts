import { InvalidInputError, NoteVerificationError } from '../errors';
import { type Checkpoint, parseCheckpointBody } from '../log/checkpoint';
import { EMPTY_ROOT, hashesEqual } from '../log/merkle-hashing';
import { verifyConsistency } from '../log/proof-verification';
import { parseSignedNote, verifyNote } from '../log/signed-note';
import type { AddCheckpointRequest } from './add-checkpoint-request';
import type { TrustedLogs } from './trusted-logs';
import { WitnessStatus } from './witness-response';
import type { WitnessState } from './witness-state';

/**
 * The witness's decisions on an `add-checkpoint` request (C2SP tlog-witness), as values: first
 * {@link admitCheckpoint} (is this a checkpoint of a log it trusts, signed by that log?), then,
 * with the state stored for that origin, {@link decideAddCheckpoint} (is it consistent with the
 * last one it cosigned?). Neither signs nor stores: the handler cosigns and saves the new state in
 * one conditional write, so two requests decided on the same state cannot both be cosigned
 * (docs/witness.md, "Decisions").
 */

/** A request the witness refuses, with the status it answers. */
export interface WitnessRefusal {
  readonly kind: 'REFUSED';
  readonly status: Exclude<WitnessStatus, 200>;
  /** For people and logs: what was wrong. */
  readonly reason: string;
  /** With 409: the size of the latest checkpoint the witness cosigned for the origin (0: none). */
  readonly currentSize?: number;
}

/** A checkpoint signed by a trusted key of its origin, not yet compared with the witness's state. */
export interface AdmittedCheckpoint {
  readonly kind: 'ADMITTED';
  readonly checkpoint: Checkpoint;
  /** The note's text (the checkpoint body, what a cosignature signs). */
  readonly body: string;
  readonly oldSize: number;
  readonly proof: readonly Uint8Array[];
}

/** The witness cosigns `checkpoint` and stores `next`, on the condition that the state it read still holds. */
export interface CosignDecision {
  readonly kind: 'COSIGN';
  readonly body: string;
  readonly next: WitnessState;
}

const refuse = (status: WitnessRefusal['status'], reason: string, currentSize?: number): WitnessRefusal =>
  currentSize === undefined ? { kind: 'REFUSED', status, reason } : { kind: 'REFUSED', status, reason, currentSize };

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

/**
 * Decides an admitted checkpoint against the state stored for its origin (`null`: never
 * cosigned). 409 with the witness's size when the old size is not that size, or the same size
 * carries another root; 422 when the proof does not show the checkpoint extends the stored
 * root (the stored root, never one from the request); else cosign, with the checkpoint as the new
 * state. A checkpoint equal to the stored one is cosigned again (a fresh timestamp: the
 * heartbeat of docs/witness.md). Never throws.
 */
export function decideAddCheckpoint(
  stored: WitnessState | null,
  admitted: AdmittedCheckpoint,
): CosignDecision | WitnessRefusal {
  const { checkpoint } = admitted;
  const currentSize = stored?.size ?? 0;
  const currentRoot = stored?.rootHash ?? EMPTY_ROOT;
  if (admitted.oldSize !== currentSize) {
    return refuse(
      WitnessStatus.CONFLICT,
      `old size ${admitted.oldSize} is not the witness's size ${currentSize}`,
      currentSize,
    );
  }
  if (checkpoint.size === currentSize && stored !== null && !hashesEqual(checkpoint.rootHash, currentRoot)) {
    return refuse(WitnessStatus.CONFLICT, `size ${currentSize} was cosigned with another root hash`, currentSize);
  }
  const consistent = verifyConsistency({
    size1: currentSize,
    size2: checkpoint.size,
    root1: currentRoot,
    root2: checkpoint.rootHash,
    proof: admitted.proof,
  });
  if (!consistent) {
    return refuse(
      WitnessStatus.BAD_PROOF,
      `the consistency proof from size ${currentSize} to ${checkpoint.size} does not verify`,
    );
  }
  return {
    kind: 'COSIGN',
    body: admitted.body,
    next: { origin: checkpoint.origin, size: checkpoint.size, rootHash: Uint8Array.from(checkpoint.rootHash) },
  };
}
