import { ResealError } from '../errors';
import type { NoteVerifierKey } from '../log/note-key';
import { openCheckpoint } from '../log/verified-checkpoint';
import type { DeploymentLogState } from './deployment-log-state';

/**
 * The head's `published` note, kept only when it is a checkpoint of this log the log key signed,
 * of at most the authenticated head's size (and its very root at that size); else `null`
 * (docs/deployment-log.md, "Storage"). The field is the table's word: an integrator carries it
 * forward, and starts its witness submission from its size, only once it is checked here.
 * Cosignatures are not checked: they are the witness's, and a client checks them against its policy.
 */
export function authenticatePublished(
  published: string | null,
  state: DeploymentLogState,
  key: NoteVerifierKey,
  origin: string,
): string | null {
  if (published === null) return null;
  let checkpoint: ReturnType<typeof openCheckpoint>;
  try {
    checkpoint = openCheckpoint(published, key, origin);
  } catch (error) {
    if (error instanceof ResealError) return null;
    throw error;
  }
  if (checkpoint.size > state.size) return null;
  if (checkpoint.size === state.size && Buffer.compare(checkpoint.rootHash, state.rootHash) !== 0) return null;
  return published;
}
