import { ResealError } from '../shared/errors';
import type { Checkpoint } from '../shared/log/checkpoint';
import { proveConsistency } from '../shared/log/consistency-proof';
import { hashesEqual } from '../shared/log/hashes-equal';
import { nodeSourceOf } from '../shared/log/node-source';
import { openCheckpoint } from '../shared/log/verified-checkpoint';
import { verifyConsistency } from '../shared/log/verify-consistency';
import type { DeploymentLogReads } from '../shared/ports/deployment-log-reads';
import type { StoredDeploymentHead } from '../shared/ports/deployment-log-store';
import type { TlogPolicy } from '../shared/witness/tlog-policy';
import type { PolicyWitnessing } from './freshness-policy';

/**
 * The note of the deployment head a client checks its policy against (docs/deployment-log.md,
 * "Clients", item 2): `NOTE` (`null` when the head holds none), `FORK` when the head's two
 * log-signed notes are two histories, or `UNREADABLE` when a note the head item carries does not
 * verify with a policy log key (an edited item: tamper evidence, refused, never silently skipped).
 */
export type HeadNote =
  | { readonly kind: 'NOTE'; readonly note: string | null }
  | { readonly kind: 'FORK'; readonly reason: string }
  | { readonly kind: 'UNREADABLE'; readonly reason: string };

const present = (note: string | null | undefined): note is string => typeof note === 'string' && note !== '';

/** `note` opened with a policy log key of its claimed origin; `null` when no such key verifies it. */
function opened(note: string, policy: TlogPolicy): Checkpoint | null {
  for (const log of policy.logs) {
    try {
      return openCheckpoint(note, log.key, log.key.name);
    } catch (error) {
      if (!(error instanceof ResealError)) throw error;
    }
  }
  return null;
}

/**
 * Chooses the head item's note (docs/deployment-log.md, "Clients", item 2). Every note the head
 * item carries (`published`, `checkpoint`) must verify with a policy log key: the integrator
 * writes only log-signed notes there, so one that does not is a table writer's edit, answered
 * `UNREADABLE` (the reader refuses the chain, `POLICY_NOT_MET`), never dropped for the other note.
 * Under a witnessed policy only `published` carries cosignatures, so it is the note. Under an
 * unwitnessed policy (`quorum none`) both are notes the log signed, and the policy asks nothing
 * more of either: a table writer who sets one of them to an older note of the log must not roll
 * the answer back, so the larger is taken, once the smaller is shown a prefix of it by an RFC 9162
 * consistency proof from the table's nodes (`FORK` when it is not, or the proof cannot be built:
 * two histories, fail closed).
 *
 * @throws what the table reads throw (an outage), never for a forged or hidden item
 */
export async function chooseHeadNote(
  head: StoredDeploymentHead,
  witnessing: PolicyWitnessing,
  policy: TlogPolicy,
  log: Pick<DeploymentLogReads, 'readNodes'>,
): Promise<HeadNote> {
  const published = present(head.published) ? head.published : null;
  const checkpoint = present(head.checkpoint) ? head.checkpoint : null;
  const candidates = [
    { field: 'published', note: published },
    { field: 'checkpoint', note: checkpoint },
  ].flatMap(({ field, note }) => (note === null ? [] : [{ field, note, checkpoint: opened(note, policy) }]));
  const unreadable = candidates.find((candidate) => candidate.checkpoint === null);
  if (unreadable) {
    return {
      kind: 'UNREADABLE',
      reason: `the deployment head's ${unreadable.field} note does not verify with the policy's log key: an edited head item, fail closed`,
    };
  }
  if (witnessing === 'WITNESSED') return { kind: 'NOTE', note: published };
  const verified = candidates as { note: string; checkpoint: Checkpoint }[];
  const [first, second] = verified;
  if (!first) return { kind: 'NOTE', note: null };
  if (!second) return { kind: 'NOTE', note: first.note };
  const [smaller, larger] =
    first.checkpoint.size <= second.checkpoint.size
      ? [first.checkpoint, second.checkpoint]
      : [second.checkpoint, first.checkpoint];
  const largerNote = larger === first.checkpoint ? first.note : second.note;
  const fork = (why: string): HeadNote => ({
    kind: 'FORK',
    reason: `the deployment head's published note (${first.checkpoint.size} leaves) and its checkpoint (${second.checkpoint.size} leaves) ${why}: fail closed`,
  });
  if (smaller.origin !== larger.origin) return fork('are of two logs');
  if (smaller.size === larger.size) {
    return hashesEqual(smaller.rootHash, larger.rootHash)
      ? { kind: 'NOTE', note: largerNote }
      : fork('are two histories');
  }
  if (smaller.size === 0) return { kind: 'NOTE', note: largerNote };
  let proof: Uint8Array[];
  try {
    proof = await proveConsistency(
      smaller.size,
      larger.size,
      nodeSourceOf((refs) => log.readNodes(refs)),
    );
  } catch (error) {
    if (!(error instanceof ResealError)) throw error;
    return fork('cannot be shown consistent (a node of the consistency proof is missing)');
  }
  const consistent = verifyConsistency({
    size1: smaller.size,
    size2: larger.size,
    root1: smaller.rootHash,
    root2: larger.rootHash,
    proof,
  });
  return consistent ? { kind: 'NOTE', note: largerNote } : fork('are two histories (RFC 9162 consistency fails)');
}
