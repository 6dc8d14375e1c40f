import { HEX_DIGEST_PATTERN } from '../canonical/digest';
import { LogStateError, ResealError } from '../errors';
import { appendLeaf } from '../log/append-leaf';
import { frontierRoot } from '../log/frontier-root';
import type { NoteVerifierKey } from '../log/note-key';
import { subtreeRefs } from '../log/subtree-refs';
import { openCheckpoint } from '../log/verified-checkpoint';
import type { StoredDeploymentHead } from '../ports/deployment-log-store';
import { type DeploymentLogState, emptyDeploymentLogState } from './deployment-log-state';
import { deploymentLeafHashIn } from './re-anchored-leaf';
import { storedReAnchor } from './stored-re-anchor';

/**
 * Authenticates the deployment log's stored head before an integration extends it
 * (docs/deployment-log.md, "Integration", step 1): the checkpoint verifies with the log key under
 * `origin`, its size is the head's, and the stored frontier extended by the leaf of the stored
 * index root hashes to the signed root. Like a lineage head, it shows the state is one the log
 * signed, not the newest: a warm integrator and the witness catch a rolled-back head.
 *
 * @param stored - the head item, or `null` before the first integration (an empty log)
 * @throws {LogStateError} (lineage `deployment`) when anything does not authenticate
 */
export function authenticateDeploymentHead(
  stored: StoredDeploymentHead | null,
  key: NoteVerifierKey,
  origin: string,
): DeploymentLogState {
  if (stored === null) return emptyDeploymentLogState();
  const fail = (reason: string, cause?: unknown) =>
    new LogStateError('deployment', reason, cause === undefined ? undefined : { cause });
  let checkpoint: ReturnType<typeof openCheckpoint>;
  try {
    checkpoint = openCheckpoint(stored.checkpoint, key, origin);
  } catch (error) {
    if (!(error instanceof ResealError)) throw error;
    throw fail(`deployment checkpoint: ${error.message}`, error);
  }
  if (checkpoint.size !== stored.size || stored.size < 1) {
    throw fail(`the head names ${stored.size} leaves but its signed checkpoint ${checkpoint.size}`);
  }
  // The frontier is read from an item the table writer can edit: any shape but an array is refused here.
  if (!Array.isArray(stored.frontier)) throw fail('the frontier is not a list of hashes');
  const hex = [...stored.frontier, stored.indexRoot];
  if (!hex.every((h) => typeof h === 'string' && HEX_DIGEST_PATTERN.test(h))) {
    throw fail('the frontier or index root is malformed');
  }
  if (stored.frontier.length !== subtreeRefs(0, stored.size - 1).length) {
    throw fail(`the frontier has ${stored.frontier.length} hashes; ${stored.size - 1} leaves need another count`);
  }
  const reAnchor = storedReAnchor(stored, key, origin);
  if (typeof reAnchor === 'string') throw fail(reAnchor);
  const indexRoot = Buffer.from(stored.indexRoot, 'hex');
  const { frontier } = appendLeaf(
    stored.frontier.map((h) => Buffer.from(h, 'hex')),
    stored.size - 1,
    deploymentLeafHashIn(indexRoot, reAnchor?.hash),
  );
  const rootHash = frontierRoot(frontier);
  if (Buffer.compare(rootHash, checkpoint.rootHash) !== 0) {
    throw fail(
      `the frontier and index root${reAnchor ? ' (with the re-anchor statement)' : ''} do not hash to the signed root`,
    );
  }
  const state = { size: stored.size, rootHash, frontier, indexRoot: Uint8Array.from(indexRoot) };
  return reAnchor ? { ...state, reAnchor: reAnchor.hash } : state;
}
