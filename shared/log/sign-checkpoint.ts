import type { NoteSigner } from '../ports/note-signer';
import { type Checkpoint, checkpointBody } from './checkpoint';
import { signNote } from './signed-note';

/**
 * A checkpoint as a signed note (C2SP tlog-checkpoint "Signatures"): the body of
 * {@link checkpointBody} signed by the stack's key.
 *
 * @throws {CheckpointFormatError} for an invalid checkpoint; whatever {@link signNote} throws
 */
export async function signCheckpoint(checkpoint: Checkpoint, signer: NoteSigner): Promise<string> {
  return signNote(checkpointBody(checkpoint), signer);
}
