import type { VerificationVerdict } from '../seal/verification-verdict';
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
