import type { Checkpoint } from '../log/checkpoint';
import { checkConsistency } from '../log/tree-consistency';
import { VerificationVerdict as V, type VerificationVerdict } from '../seal/verification-verdict';
import type { DeploymentChainFinding } from './deployment-chain';
import type { ReAnchorNotice } from './re-anchor-statement';

/**
 * Where a record (or an absence) stands against the witnessed deployment log
 * (docs/deployment-log.md, "Clients"). Told apart everywhere a client shows an outcome.
 */
export const FreshnessState = {
  /** The record is in the lineage head the index holds, under a deployment checkpoint that meets the policy. */
  PROVEN: 'PROVEN',
  /** The record is sealed and signed in its lineage, but newer than the head the index holds (or nothing is indexed yet). */
  SEALED_AWAITING_INTEGRATION: 'SEALED_AWAITING_INTEGRATION',
  /** The index proves the residual id (or the lineage) absent, as of the deployment checkpoint. */
  ABSENT: 'ABSENT',
  /** A latest answer older than the head the index holds: a replayed answer, not the newest. */
  NOT_NEWEST: 'NOT_NEWEST',
  /** The record, its lineage checkpoint or the table contradict what the index holds (a fork, a residual id sealed elsewhere, a hidden record). */
  INCONSISTENT: 'INCONSISTENT',
  /** The deployment chain does not verify (policy not met, cosignatures too old, a forged leaf or proof): fail closed. */
  REFUSED: 'REFUSED',
} as const;
/** One of {@link FreshnessState}. */
export type FreshnessState = (typeof FreshnessState)[keyof typeof FreshnessState];

/** The deployment chain as a client read it: a finding, or no published deployment checkpoint at all. */
export type ReadDeploymentChain = DeploymentChainFinding | { readonly kind: 'UNPUBLISHED'; readonly reason: string };

/** Where one record stands, and the finding that refutes it when it does not stand. */
export interface RecordFreshness {
  readonly state: FreshnessState;
  /** Size of the deployment checkpoint the chain was checked against, or `null` (none published, or refused). */
  readonly checkpointSize: number | null;
  readonly reason: string;
  /** The verdict a reader reports for `NOT_NEWEST`, `INCONSISTENT` and `REFUSED`; else `null`. */
  readonly finding: { readonly verdict: VerificationVerdict; readonly reason: string } | null;
  /**
   * The re-anchor the deployment checkpoint's history continues from (docs/deployment-log.md,
   * "Re-anchor"): shown with every state, so a re-anchored history is never a silent `PROVEN`.
   * Absent or `null` when the chain shows none.
   */
  readonly reAnchor?: ReAnchorNotice | null;
}

/** `decided` with the chain's re-anchor notice, when the chain verified one. */
function withReAnchor<T extends RecordFreshness | null>(chain: ReadDeploymentChain, decided: T): T {
  const notice = chain.kind === 'PROVEN' || chain.kind === 'ABSENT' ? (chain.reAnchor ?? null) : null;
  return decided && notice ? { ...decided, reAnchor: notice } : decided;
}

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

const refuted = (
  state: FreshnessState,
  checkpointSize: number | null,
  verdict: VerificationVerdict,
  reason: string,
): RecordFreshness => ({ state, checkpointSize, reason, finding: { verdict, reason } });

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
    return refuted(
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
    return refuted(
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
    return refuted(
      FreshnessState.INCONSISTENT,
      size,
      V.LINEAGE_BROKEN,
      `the record's lineage checkpoint (${answered.size} records) and the head the index holds (${indexed.size} records, ${at}) are two histories: ${consistent.reason}`,
    );
  }
  const covered = record.seq < indexed.size;
  if (input.residualAsked) {
    const held = chain.kind === 'PROVEN' ? chain.residual : null;
    if (held && (held.seq !== record.seq || held.recordHash !== record.recordHash)) {
      return refuted(
        FreshnessState.INCONSISTENT,
        size,
        V.LINEAGE_BROKEN,
        `the index maps residual ${record.residualId} to seq ${held.seq} as of ${at}, but the record shown is seq ${record.seq}: the residual id was sealed twice (RESIDUAL_CHANGED: the index keeps the first sealing)`,
      );
    }
    if (!held && covered) {
      return refuted(
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

/**
 * Decides a "no such record" answer against the chain (docs/deployment-log.md, "Clients"): the
 * index proving the residual id (or the lineage) absent makes it `ABSENT` as of the checkpoint; an
 * index that maps the residual id, or holds a lineage head covering the asked seq, makes it
 * `INCONSISTENT` (a hidden marker or record: tamper, not "no such record"). Pure.
 *
 * @returns `null` when the chain says nothing about it: no deployment checkpoint published, or a
 *   seq past the lineage head the index holds
 *
 * @param asked - the residual id asked for, or the seq (`latest`: seq 0 must exist once indexed)
 */
export function decideAbsence(
  chain: ReadDeploymentChain,
  asked: { readonly residualId: string } | { readonly seq: number },
): RecordFreshness | null {
  return withReAnchor(chain, absenceAgainstChain(chain, asked));
}

function absenceAgainstChain(
  chain: ReadDeploymentChain,
  asked: { readonly residualId: string } | { readonly seq: number },
): RecordFreshness | null {
  if (chain.kind === 'UNPUBLISHED') return null;
  if (chain.kind === 'REFUSED') {
    // Fail closed: a chain a table writer broke (a hidden leaf or node, a garbled note) must not
    // let a hidden marker read as "no such record".
    return refuted(
      FreshnessState.REFUSED,
      null,
      V.UNVERIFIED_TAMPER_RISK,
      `absence is not proven: the deployment checkpoint does not verify (${chain.refusal}): ${chain.reason}`,
    );
  }
  const size = chain.checkpoint.size;
  const at = `deployment checkpoint ${size}`;
  if ('residualId' in asked) {
    if (chain.kind === 'PROVEN' && chain.residual) {
      return refuted(
        FreshnessState.INCONSISTENT,
        size,
        V.UNVERIFIED_TAMPER_RISK,
        `the index maps residual ${asked.residualId} to seq ${chain.residual.seq} as of ${at}, but the table shows no such record: its marker or record was deleted`,
      );
    }
    return {
      state: FreshnessState.ABSENT,
      checkpointSize: size,
      reason: `absent: the index proves no residual ${asked.residualId} (${chain.kind === 'ABSENT' && chain.absent === 'lineage' ? 'and no such lineage' : 'in this lineage'}) as of ${at}`,
      finding: null,
    };
  }
  if (chain.lineage && asked.seq < chain.lineage.treeSize) {
    return refuted(
      FreshnessState.INCONSISTENT,
      size,
      V.UNVERIFIED_TAMPER_RISK,
      `the index holds ${chain.lineage.treeSize} records of the lineage as of ${at}, but the table shows no record ${asked.seq}`,
    );
  }
  // A seq past the indexed head: the index neither proves nor contradicts its absence.
  if (chain.lineage) return null;
  return {
    state: FreshnessState.ABSENT,
    checkpointSize: size,
    reason: `absent: the index proves no such lineage as of ${at}`,
    finding: null,
  };
}
