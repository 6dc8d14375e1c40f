import type { LineageStore } from '../ports/lineage-store';
import type { Checkpoint } from './checkpoint';
import type { KnownLogNodes } from './known-log-nodes';
import { buildLogProof, type LogFinding, storedLogNodes } from './stored-log';
import { type ConsistencyProof, proveTreeConsistency } from './tree-consistency';

/**
 * A consistency proof from `from` to `to` (both verified checkpoints of `lineageId`, `from` no
 * larger), built from the table's nodes, those in `known` (`knownLogNodes`) taken from there
 * instead: the proof is checked by the caller, so a node the table forged only makes it fail.
 *
 * @returns the proof, or a `LINEAGE_BROKEN` finding when it cannot be built (a node missing or unreadable)
 * @throws what the store throws
 */
export async function proveCheckpointConsistency(
  store: Pick<LineageStore, 'readNodes'>,
  lineageId: string,
  from: Checkpoint,
  to: Checkpoint,
  known?: KnownLogNodes,
): Promise<ConsistencyProof | LogFinding> {
  return buildLogProof(null, () => proveTreeConsistency(from.size, to.size, storedLogNodes(store, lineageId, known)));
}
