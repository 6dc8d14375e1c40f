import { HEX_DIGEST_PATTERN } from '../canonical/digest';
import { LogStateError, ResealError } from '../errors';
import { appendLeaf } from '../log/append-leaf';
import { frontierRoot } from '../log/frontier-root';
import type { NoteVerifierKey } from '../log/note-key';
import { subtreeRefs } from '../log/subtree-refs';
import { openCheckpoint } from '../log/verified-checkpoint';
import type { StoredDeploymentHead } from '../ports/deployment-log-store';
import { type DeploymentLogState, emptyDeploymentLogState } from './deployment-log-state';
import { type VerifiedReAnchor, verifyReAnchorStatement } from './re-anchor-statement';
import { deploymentLeafHashIn } from './re-anchored-leaf';

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

/**
 * The head's re-anchor statement, verified with the log key (docs/deployment-log.md, "Re-anchor"):
 * `null` when the head names none, else the statement, whose re-anchor leaf the head must cover
 * (its restored size below the head's); a reason when it does not hold.
 */
export function storedReAnchor(
  stored: StoredDeploymentHead,
  key: NoteVerifierKey,
  origin: string,
): VerifiedReAnchor | null | string {
  const note = stored.reAnchor ?? null;
  if (note === null) return null;
  if (typeof note !== 'string') return 'the re-anchor statement is not a note';
  const verified = verifyReAnchorStatement(note, { origin, logKeys: [key], recoveryKeys: null });
  if (verified.kind === 'REFUSED') return `the re-anchor statement: ${verified.reason}`;
  if (verified.statement.restored.size >= stored.size) {
    return `the re-anchor leaf (index ${verified.statement.restored.size}) is not in the head of ${stored.size}`;
  }
  return verified;
}

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
