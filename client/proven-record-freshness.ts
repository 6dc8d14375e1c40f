import { decideRecordFreshness } from '../shared/integrator/decide-record-freshness';
import type { ReadDeploymentChain, RecordFreshness } from '../shared/integrator/record-freshness';
import type { Checkpoint } from '../shared/log/checkpoint';
import { knownLogNodes } from '../shared/log/known-log-nodes';
import type { SealedRecord } from '../shared/seal/sealed-record';
import type { DeploymentChainRead } from './deployment-chain-reader';
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
 * against the two roots (one that cannot be built leaves them inconsistent). Shared by recalls,
 * walks and write outcomes, so all decide alike. With `residualChain` (the opened chain's
 * `withResidual`), a record asked without its residual id is also checked against the index entry
 * of its residual id, under the same deployment checkpoint as `chain` (the head is not read again):
 * one the index maps to another record is `INCONSISTENT` (`RESIDUAL_CHANGED`: a second sealing).
 *
 * @throws what the table reads throw (an outage), never for a forged or hidden item
 */
export async function provenRecordFreshness(
  log: Pick<LogReader, 'consistency'>,
  lineageId: string,
  chain: ReadDeploymentChain,
  answered: Checkpoint,
  record: SealedRecord,
  asked: FreshnessAsked,
  residualChain: DeploymentChainRead['withResidual'] | null = null,
): Promise<RecordFreshness> {
  const decided = await againstChain(log, lineageId, chain, answered, record, asked);
  if (decided.finding || asked.residualAsked || residualChain === null) return decided;
  if (chain.kind === 'UNPUBLISHED' || chain.kind === 'REFUSED') return decided;
  // Asked without its residual id (a latest recall, a walk's head): the index must still map that
  // id to this very record, else it is a second sealing the integrator left out
  // (RESIDUAL_CHANGED), never proven memory (docs/deployment-log.md, "Clients", item 3).
  const residualId = record.header.residualId;
  const byResidual = await residualChain(residualId);
  const checked = await againstChain(log, lineageId, byResidual, answered, record, {
    latest: false,
    residualAsked: true,
  });
  return checked.finding ? checked : decided;
}

async function againstChain(
  log: Pick<LogReader, 'consistency'>,
  lineageId: string,
  chain: ReadDeploymentChain,
  answered: Checkpoint,
  record: SealedRecord,
  asked: FreshnessAsked,
): Promise<RecordFreshness> {
  const indexedSize = 'lineage' in chain && chain.lineage ? chain.lineage.treeSize : null;
  let consistency: unknown = null;
  if (indexedSize !== null && indexedSize !== answered.size) {
    // Only the sizes choose the nodes; the proof is checked against the two roots.
    const sized = (size: number): Checkpoint => ({ ...answered, size });
    const [from, to] = answered.size < indexedSize ? [answered, sized(indexedSize)] : [sized(indexedSize), answered];
    // The record's leaf, and the answered tree's frontier when it proves the record as the last
    // leaf, are not read again: the indexed head one record behind needs no node item at all.
    const known = knownLogNodes(answered, {
      seq: record.header.monotonicSequenceNumber,
      recordHash: record.recordHash,
    });
    const proof = await log.consistency(lineageId, from, to, known);
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
