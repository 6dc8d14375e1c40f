import { EMPTY_ROOT } from '../log/empty-root';
import { hashesEqual } from '../log/hashes-equal';
import { verifyConsistency } from '../log/verify-consistency';
import type { AdmittedCheckpoint } from './admit-checkpoint';
import { witnessRefusal as refuse, type WitnessRefusal } from './witness-refusal';
import { WitnessStatus } from './witness-response';
import type { WitnessState } from './witness-state';

/** The witness cosigns `checkpoint` and stores `next`, on the condition that the state it read still holds. */
export interface CosignDecision {
  readonly kind: 'COSIGN';
  readonly body: string;
  readonly next: WitnessState;
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
