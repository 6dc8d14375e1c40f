import { verifyReAnchorStatement } from '../integrator/re-anchor-statement';
import { hashesEqual } from '../log/hashes-equal';
import type { NoteVerifierKey } from '../log/note-key';
import { verifyConsistency } from '../log/verify-consistency';
import { admitCheckpoint } from './admit-checkpoint';
import type { CosignDecision } from './decide-add-checkpoint';
import type { ReAnchorRequest } from './re-anchor-request';
import type { TrustedLogs } from './trusted-logs';
import type { WitnessRefusal } from './witness-refusal';
import { WitnessStatus } from './witness-response';
import type { WitnessState } from './witness-state';

const refuse = (status: WitnessRefusal['status'], reason: string, currentSize?: number): WitnessRefusal =>
  currentSize === undefined ? { kind: 'REFUSED', status, reason } : { kind: 'REFUSED', status, reason, currentSize };

/**
 * Decides a re-anchor request against the state stored for its origin (docs/witness.md,
 * "re-anchor"), as a value; like `decideAddCheckpoint`, it neither signs nor stores. The witness
 * leaves the history it cosigned only when all of these hold, in this order:
 *
 * 1. recovery keys are configured (else 403) and the checkpoint is admitted as by `add-checkpoint`
 *    (400 malformed, 404 unknown origin, 403 not signed by a key of its origin);
 * 2. the statement is a re-anchor statement of that origin, signed by a key of the origin **and**
 *    by a configured recovery key (400 malformed, 403 otherwise);
 * 3. its `lost` checkpoint is exactly the state the witness holds (409 with the witness's size
 *    otherwise: a statement made for another state, or replayed after the re-anchor, is refused);
 * 4. the checkpoint holds one leaf more than the statement's restored head (400), and the
 *    consistency proof from the restored head to it verifies (422).
 *
 * Then it cosigns the checkpoint and stores it as the new state. Never throws.
 */
export function decideReAnchor(
  stored: WitnessState | null,
  request: ReAnchorRequest,
  trusted: TrustedLogs,
  recoveryKeys: readonly NoteVerifierKey[],
): CosignDecision | WitnessRefusal {
  if (recoveryKeys.length === 0)
    return refuse(WitnessStatus.FORBIDDEN, 'this witness has no recovery key: no re-anchor');
  const admitted = admitCheckpoint({ oldSize: 0, proof: [], note: request.checkpoint }, trusted);
  if (admitted.kind === 'REFUSED') return admitted;
  const { checkpoint } = admitted;
  const verified = verifyReAnchorStatement(request.statement, {
    origin: checkpoint.origin,
    logKeys: trusted.get(checkpoint.origin) ?? [],
    recoveryKeys,
  });
  if (verified.kind === 'REFUSED') {
    const status = verified.reason.startsWith('malformed') ? WitnessStatus.BAD_REQUEST : WitnessStatus.FORBIDDEN;
    return refuse(status, `re-anchor statement: ${verified.reason}`);
  }
  const { restored, lost } = verified.statement;
  const currentSize = stored?.size ?? 0;
  if (stored === null || stored.size !== lost.size || !hashesEqual(stored.rootHash, lost.rootHash)) {
    return refuse(
      WitnessStatus.CONFLICT,
      `the statement's lost checkpoint (size ${lost.size}) is not the witness's state (size ${currentSize})`,
      currentSize,
    );
  }
  if (checkpoint.size !== restored.size + 1) {
    return refuse(
      WitnessStatus.BAD_REQUEST,
      `the re-anchored checkpoint must hold ${restored.size + 1} leaves (the restored head and the re-anchor leaf), not ${checkpoint.size}`,
    );
  }
  const consistent = verifyConsistency({
    size1: restored.size,
    size2: checkpoint.size,
    root1: restored.rootHash,
    root2: checkpoint.rootHash,
    proof: request.proof,
  });
  if (!consistent) {
    return refuse(
      WitnessStatus.BAD_PROOF,
      `the consistency proof from the restored head ${restored.size} does not verify`,
    );
  }
  return {
    kind: 'COSIGN',
    body: admitted.body,
    next: { origin: checkpoint.origin, size: checkpoint.size, rootHash: Uint8Array.from(checkpoint.rootHash) },
  };
}
