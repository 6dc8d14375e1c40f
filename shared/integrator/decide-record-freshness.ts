import type { Checkpoint } from '../log/checkpoint';
import { checkConsistency } from '../log/tree-consistency';
import { VerificationVerdict as V } from '../seal/verification-verdict';
import { FreshnessState, type ReadDeploymentChain, type RecordFreshness } from './record-freshness';
import { refutedFreshness } from './refuted-freshness';
import { withReAnchor } from './with-re-anchor';

/** Input of {@link decideRecordFreshness}. */
export interface RecordFreshnessInput {
  /** The chain for the record's lineage (and its residual id when the record was asked by residual id). */
  readonly chain: ReadDeploymentChain;
  /** The lineage checkpoint the record was proven in (signature already checked). */
  readonly answered: Checkpoint;
  readonly record: { readonly seq: number; readonly recordHash: string; readonly residualId: string };
  /** The record was asked for as the lineage's latest (an older one is then a replay). */
  readonly latest: boolean;
  /** Whether the chain was read with the record's residual id (a recall by residual id). */
  readonly residualAsked: boolean;
  /**
   * An RFC 9162 consistency proof (`ConsistencyProof` JSON form) between `answered` and the indexed
   * head, from the smaller to the larger, built from the table's nodes; `null` when the sizes are
   * equal or it could not be built.
   */
  readonly consistency: unknown;
}

/**
 * Decides where a proven record stands against the deployment chain (docs/deployment-log.md,
 * "Clients"): `PROVEN` only when the chain verifies and the record's lineage checkpoint equals,
 * or is consistent with, the indexed lineage head that covers the record; `SEALED_AWAITING_INTEGRATION`
 * for a record past the indexed head (or before any integration); `NOT_NEWEST` for a latest
 * answer older than the indexed head; `INCONSISTENT` when the lineage checkpoint and the index
 * disagree; `REFUSED` when the chain itself does not verify. Pure.
 */
export function decideRecordFreshness(input: RecordFreshnessInput): RecordFreshness {
  return withReAnchor(input.chain, decideAgainstChain(input));
}

function decideAgainstChain(input: RecordFreshnessInput): RecordFreshness {
  const { chain, answered, record } = input;
  if (chain.kind === 'UNPUBLISHED') {
    return {
      state: FreshnessState.SEALED_AWAITING_INTEGRATION,
      checkpointSize: null,
      reason: chain.reason,
      finding: null,
    };
  }
  if (chain.kind === 'REFUSED') {
    return refutedFreshness(
      FreshnessState.REFUSED,
      null,
      V.UNVERIFIED_TAMPER_RISK,
      `the deployment checkpoint does not prove freshness (${chain.refusal}): ${chain.reason}`,
    );
  }
  const size = chain.checkpoint.size;
  const at = `deployment checkpoint ${size}`;
  if (chain.lineage === null) {
    return {
      state: FreshnessState.SEALED_AWAITING_INTEGRATION,
      checkpointSize: size,
      reason: `the lineage is not in the index as of ${at}: sealed, awaiting integration`,
      finding: null,
    };
  }
  const indexed: Checkpoint = {
    origin: answered.origin,
    size: chain.lineage.treeSize,
    rootHash: Buffer.from(chain.lineage.rootHash, 'hex'),
  };
  if (input.latest && answered.size < indexed.size) {
    return refutedFreshness(
      FreshnessState.NOT_NEWEST,
      size,
      V.UNVERIFIED_TAMPER_RISK,
      `not the newest: the answer is proven in a lineage checkpoint of ${answered.size} records, but the index holds ${indexed.size} as of ${at} (a replayed answer)`,
    );
  }
  const [older, newer] = answered.size <= indexed.size ? [answered, indexed] : [indexed, answered];
  const proof = older.size === newer.size ? { fromSize: older.size, toSize: newer.size, proof: [] } : input.consistency;
  const consistent = checkConsistency(older, newer, proof);
  if (consistent.verdict !== V.VERIFIED_INTACT) {
    return refutedFreshness(
      FreshnessState.INCONSISTENT,
      size,
      V.LINEAGE_BROKEN,
      `the record's lineage checkpoint (${answered.size} records) and the head the index holds (${indexed.size} records, ${at}) are not shown to be one history: ${consistent.reason}`,
    );
  }
  const covered = record.seq < indexed.size;
  if (input.residualAsked) {
    const held = chain.kind === 'PROVEN' ? chain.residual : null;
    if (held && (held.seq !== record.seq || held.recordHash !== record.recordHash)) {
      return refutedFreshness(
        FreshnessState.INCONSISTENT,
        size,
        V.LINEAGE_BROKEN,
        `the index maps residual ${record.residualId} to seq ${held.seq} as of ${at}, but the record shown is seq ${record.seq}: the residual id was sealed twice (RESIDUAL_CHANGED: the index keeps the first sealing)`,
      );
    }
    if (!held && covered) {
      return refutedFreshness(
        FreshnessState.INCONSISTENT,
        size,
        V.LINEAGE_BROKEN,
        `the index holds ${indexed.size} records of the lineage as of ${at} but not residual ${record.residualId}, sealed at seq ${record.seq}`,
      );
    }
  }
  return covered
    ? {
        state: FreshnessState.PROVEN,
        checkpointSize: size,
        reason: `proven: seq ${record.seq} is in the lineage head the index holds (${indexed.size} records) as of ${at}`,
        finding: null,
      }
    : {
        state: FreshnessState.SEALED_AWAITING_INTEGRATION,
        checkpointSize: size,
        reason: `sealed, awaiting integration: seq ${record.seq} is past the lineage head the index holds (${indexed.size} records) as of ${at}`,
        finding: null,
      };
}
