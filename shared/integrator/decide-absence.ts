import { VerificationVerdict as V } from '../seal/verification-verdict';
import { FreshnessState, type ReadDeploymentChain, type RecordFreshness } from './record-freshness';
import { refutedFreshness } from './refuted-freshness';
import { withReAnchor } from './with-re-anchor';

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
    return refutedFreshness(
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
      return refutedFreshness(
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
    return refutedFreshness(
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
