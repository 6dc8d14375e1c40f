import { CheckpointOriginMismatchError } from '../errors';
import { type Checkpoint, parseCheckpointBody } from './checkpoint';
import type { NoteVerifierKey } from './note-key';
import { verifyNote } from './signed-note';

/**
 * Verifies a signed checkpoint with `key` and returns it, after checking it is the log asked
 * about: a valid checkpoint of another lineage must not pass for this one.
 *
 * @throws {NoteFormatError} / {@link NoteVerificationError} as {@link verifyNote} does
 * @throws {CheckpointFormatError} when the signed text is not a checkpoint body
 * @throws {CheckpointOriginMismatchError} when the origin is not `origin`
 */
export function verifyCheckpoint(note: string, key: NoteVerifierKey, origin: string): Checkpoint {
  const checkpoint = parseCheckpointBody(verifyNote(note, key));
  if (checkpoint.origin !== origin) throw new CheckpointOriginMismatchError(origin, checkpoint.origin);
  return checkpoint;
}

/** A checkpoint whose signature and origin have been checked, with the signed note it came from. */
export interface VerifiedCheckpoint extends Checkpoint {
  /** The whole signed note (C2SP signed-note text), as received. */
  readonly note: string;
}

/**
 * {@link verifyCheckpoint}, keeping the note: what a reader passes on (in a triage answer, a
 * receipt) and what a client keeps as its trusted checkpoint.
 *
 * @throws as {@link verifyCheckpoint}
 */
export function openCheckpoint(note: string, key: NoteVerifierKey, origin: string): VerifiedCheckpoint {
  return { ...verifyCheckpoint(note, key, origin), note };
}
