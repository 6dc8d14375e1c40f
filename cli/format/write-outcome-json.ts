import { freshnessShape } from '../../client/shapes/freshness-shape';
import type { WriteOutcome } from '../../client/write-outcomes';
import { checkpointText } from './checkpoint-text';
import { conflictJson } from './conflict-json';
import { headJson } from './head-json';
import { rejectionJson } from './rejection-json';

/** The outcome part of `reseal publish --wait --json`. */
export function writeOutcomeJson(outcome: WriteOutcome) {
  switch (outcome.kind) {
    case 'SEALED':
      return {
        outcome: outcome.kind,
        head: headJson(outcome.head),
        checkpoint: checkpointText(outcome.head),
        signed_checkpoint: outcome.checkpoint,
        inclusion_proof: {
          leaf_index: outcome.proof.leafIndex,
          tree_size: outcome.proof.treeSize,
          hashes: outcome.proof.inclusionProof,
        },
        freshness: freshnessShape(outcome.freshness),
      };
    case 'REJECTED':
      return { outcome: outcome.kind, rejection: rejectionJson(outcome.rejection) };
    case 'CONFLICT':
      return { outcome: outcome.kind, conflict: conflictJson(outcome.conflict) };
  }
}
