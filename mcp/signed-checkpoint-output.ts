import type { SignedCheckpointOutput } from '../client/shapes/signed-checkpoint-output';
import { type Checkpoint, parseCheckpointBody } from '../shared/log/checkpoint';
import { parseSignedNote } from '../shared/log/signed-note';

/** A checkpoint and its signed note as a tool answers them (root hash in hex). */
export function signedCheckpointOutput(
  checkpoint: Checkpoint & { readonly note: string | null },
): SignedCheckpointOutput {
  return {
    note: checkpoint.note,
    origin: checkpoint.origin,
    size: checkpoint.size,
    rootHash: Buffer.from(checkpoint.rootHash).toString('hex'),
  };
}

/** The fields of a signed checkpoint note the client already verified (its body, read again). */
export function noteCheckpointOutput(note: string): SignedCheckpointOutput {
  return signedCheckpointOutput({ ...parseCheckpointBody(parseSignedNote(note).text), note });
}
