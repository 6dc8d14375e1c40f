import {
  decideRecordFreshness,
  type ReadDeploymentChain,
  type RecordFreshness,
} from '../shared/integrator/record-freshness';
import type { VerifiedCheckpoint } from '../shared/log/signed-checkpoint';
import type { SealedRecord } from '../shared/seal/sealed-record';
import type { FreshnessPolicy } from './freshness-policy';
import type { LogReader } from './log-reader';
import type { Freshness } from './verified-recall';

/** How the record was asked for: as the lineage's latest (an older one is a replay), and by its residual id. */
export interface FreshnessAsked {
  readonly latest: boolean;
  readonly residualAsked: boolean;
}

/**
 * Where a record proven in its lineage checkpoint stands against the deployment chain
 * (`decideRecordFreshness`, docs/deployment-log.md, "Clients"): the consistency proof between
 * the record's lineage checkpoint and the indexed head is built from the table's nodes and checked
 * against the two roots (one that cannot be built leaves them inconsistent). Shared by recalls and
 * write outcomes, so both decide alike.
 *
 * @throws what the table reads throw (an outage), never for a forged or hidden item
 */
export async function provenRecordFreshness(
  log: Pick<LogReader, 'consistency'>,
  lineageId: string,
  chain: ReadDeploymentChain,
  answered: VerifiedCheckpoint,
  record: SealedRecord,
  asked: FreshnessAsked,
): Promise<RecordFreshness> {
  const indexedSize = 'lineage' in chain && chain.lineage ? chain.lineage.treeSize : null;
  let consistency: unknown = null;
  if (indexedSize !== null && indexedSize !== answered.size) {
    // Only the sizes choose the nodes; the proof is checked against the two roots.
    const sized = (size: number): VerifiedCheckpoint => ({ ...answered, size });
    const [from, to] = answered.size < indexedSize ? [answered, sized(indexedSize)] : [sized(indexedSize), answered];
    const proof = await log.consistency(lineageId, from, to);
    consistency = 'kind' in proof ? null : proof;
  }
  return decideRecordFreshness({
    chain,
    answered,
    record: {
      seq: record.header.monotonicSequenceNumber,
      recordHash: record.recordHash,
      residualId: record.header.residualId,
    },
    latest: asked.latest,
    residualAsked: asked.residualAsked,
    consistency,
  });
}

/** What a reader shows of a freshness decision: the state, the policy's witnessing and the window (docs/cli.md, "Freshness"). */
export function freshnessOf(decided: RecordFreshness, policy: FreshnessPolicy): Freshness {
  return {
    state: decided.state,
    checkpointSize: decided.checkpointSize,
    reason: decided.reason,
    witnessing: policy.witnessing,
    windowSeconds: policy.windowSeconds,
    reAnchor: decided.reAnchor ?? null,
  };
}
