import { type Checkpoint, checkpointBody, parseCheckpointBody } from './checkpoint';
import { CheckpointOriginMismatchError } from './errors';
import type { NoteVerifierKey } from './note-key';
import { signNote, verifyNote } from './signed-note';
import type { NoteSigner } from '../ports/note-signer';

/** A checkpoint whose signature has been checked, with the signed note it came from. */
export interface VerifiedCheckpoint extends Checkpoint {
  /** The whole signed note (C2SP signed-note text), as received. */
  readonly note: string;
}

/**
 * Opens a signed checkpoint: checks the note's Ed25519 signature by `key`, parses the C2SP
 * tlog-checkpoint body and requires its origin to be `origin` (so one lineage's checkpoint never
 * passes for another's, docs/verifiable-log.md "Checkpoints").
 *
 * @param note - a C2SP signed note, untrusted
 * @param key - the log's verifier key
 * @param origin - the expected origin line, `checkpointOrigin(logName, lineageId)`
 * @throws {NoteFormatError | CheckpointFormatError} when the note or its body is malformed
 * @throws {NoteVerificationError} when no valid signature by `key` is present
 * @throws {CheckpointOriginMismatchError} when the checkpoint is another log's
 */
export function openCheckpoint(note: string, key: NoteVerifierKey, origin: string): VerifiedCheckpoint {
  const checkpoint = parseCheckpointBody(verifyNote(note, key));
  if (checkpoint.origin !== origin) throw new CheckpointOriginMismatchError(origin, checkpoint.origin);
  return { ...checkpoint, note };
}

/**
 * Signs a checkpoint: the C2SP tlog-checkpoint body in a signed note by `signer` (one `Sign`).
 * @returns the signed note text
 * @throws whatever the signer throws (a KMS signer: `SignerUnavailableError`)
 */
export async function signCheckpoint(checkpoint: Checkpoint, signer: NoteSigner): Promise<string> {
  return signNote(checkpointBody(checkpoint), signer);
}
