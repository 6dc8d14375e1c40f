import type { ReAnchorNotice } from '../shared/integrator/re-anchor-statement';
import type { FreshnessState } from '../shared/integrator/record-freshness';
import type { StoredTreeHead } from '../shared/log/latest-checkpoint';
import type { RecallCheck } from '../shared/log/recall-check';
import type { RecordProof } from '../shared/log/record-proof';
import type { RecallTarget } from '../shared/pipeline/recall-target';
import { RefusalCode } from '../shared/pipeline/refusal-code';
import type { TriageCompletedDetail } from '../shared/pipeline/triage-completed-detail';
import { TriageOutcome } from '../shared/pipeline/triage-outcome';
import type { SealedRecord } from '../shared/seal/sealed-record';
import { VerificationVerdict as V, type VerificationVerdict } from '../shared/seal/verification-verdict';
import type { DeltaIsolationReport } from '../shared/triage/delta-isolation-report';
import type { PolicyWitnessing } from './freshness-policy';

/**
 * How a recall ended, as the client decided it (docs/verifiable-log.md, "Recall"). Renderers (the
 * CLI's text and `--json`, the MCP tools) and exit codes map from this alone (docs/cli.md,
 * `reseal recall`).
 */
export const RecallEnd = {
  /** The record is proven and the delta recomputed: act on the delta verdict. */
  TRIAGED: 'TRIAGED',
  /** Nothing proven: the record, the log or the answer does not verify (tamper or unverifiable). */
  NOT_INTACT: 'NOT_INTACT',
  /** Triage says the target does not exist, and the signed log this client read does not contradict it. */
  NOT_FOUND: 'NOT_FOUND',
  /** Triage refused the request as invalid (unproven; the client validated the request itself). */
  INVALID_REQUEST: 'INVALID_REQUEST',
  /** The record is proven but its manifest cannot be triaged: rebuild that memory. */
  UNTRIAGEABLE: 'UNTRIAGEABLE',
  /**
   * The record is sealed, awaiting integration: the tree it is proven in is the sealer's word
   * alone (a head it MAC'd, past the head the deployment index holds), so it is not proven memory
   * yet, and not tampering: recall again after the integration interval.
   */
  AWAITING_INTEGRATION: 'AWAITING_INTEGRATION',
} as const;
/** One of {@link RecallEnd}. */
export type RecallEnd = (typeof RecallEnd)[keyof typeof RecallEnd];

/** A checkpoint a rollback of the lineage was checked against. */
export type TruncationReference =
  /** The signed checkpoint the client kept (its checkpoint store). */
  | { readonly kind: 'KEPT_CHECKPOINT'; readonly size: number }
  /** The signed checkpoint the caller gave (`trustedCheckpoint`). */
  | { readonly kind: 'GIVEN_CHECKPOINT'; readonly size: number }
  /** The `{ seq, recordHash }` the caller gave (`checkpoint`, `reseal recall --checkpoint`). */
  | { readonly kind: 'GIVEN_HEAD'; readonly seq: number; readonly recordHash: string };

/**
 * The deployment checkpoint a recall's chain was read from, as a check of a rollback of proven
 * memory (docs/deployment-log.md, "Clients"; docs/verifiable-log.md, "Checkpoints the client
 * keeps"): with unsigned lineage checkpoints it is the only one.
 */
export interface DeploymentRollbackCheck {
  /** Leaves of the deployment checkpoint the chain verified. */
  readonly size: number;
  /** Kept in the client's checkpoint store: the table was no older than the one kept before, else refused. */
  readonly kept: boolean;
  /** The policy asks for witnesses: a table older than the freshness window fails the policy. */
  readonly witnessed: boolean;
  /** The freshness window, seconds (maximum age + integration interval); `null` when unwitnessed. */
  readonly windowSeconds: number | null;
}

/** What the client checked a recall against. */
export interface RecallChecks {
  /** Size of the signed checkpoint the record was proven in, or `null` (none proven). */
  readonly checkpointSize: number | null;
  /**
   * Size of the newest signed checkpoint the client read itself from the head item before asking
   * (the answer may be no older), or `null` (the lineage had none, or it did not verify).
   */
  readonly newestSize: number | null;
  /**
   * The lineage checkpoints only (kept or given) a rollback was checked against; empty when none
   * was (a restored head item, records and checkpoint together, then cannot be seen by them:
   * docs/verifiable-log.md, "Recall"; the deployment checkpoint's check is `deployment`).
   */
  readonly truncationCheckedAgainst: readonly TruncationReference[];
  /** The deployment checkpoint the recall's chain verified, or `null` (no deployment log read, none published, or refused). */
  readonly deployment: DeploymentRollbackCheck | null;
  /** Whether the client keeps checkpoints (a checkpoint store). */
  readonly keepsCheckpoints: boolean;
  /** Whether the client reads the deployment log (a store keeps its checkpoint when published). */
  readonly readsDeploymentLog: boolean;
}

/**
 * Where a recall stands against the witnessed deployment log (docs/deployment-log.md, "Clients").
 */
export interface Freshness {
  readonly state: FreshnessState;
  /** Size of the deployment checkpoint the chain was checked against, or `null` (none published, or refused). */
  readonly checkpointSize: number | null;
  readonly reason: string;
  /** `UNWITNESSED`: the policy is the log alone, and a cold client cannot detect a rollback of the whole table. */
  readonly witnessing: PolicyWitnessing;
  /** Max age + integration interval, seconds: what a cold client may be shown superseded; `null` when unwitnessed. */
  readonly windowSeconds: number | null;
  /**
   * The re-anchor the deployment log's history continues from (docs/deployment-log.md,
   * "Re-anchor"): what a restore lost, when and why; `null` (or absent) when none.
   */
  readonly reAnchor?: ReAnchorNotice | null;
}

/** A refusal of triage, and whether the client confirmed it. */
export type RecallRefusal = NonNullable<RecallCheck['refusal']>;

/**
 * A recall, decided once by the client ({@link decideRecall}): every renderer reads this value
 * and decides nothing. Nothing here comes from the stored answer unless the client proved it,
 * except `report`, which is diagnostic.
 */
export interface VerifiedRecall {
  readonly requestId: string;
  readonly lineageId: string;
  /** The target the caller asked for. */
  readonly target: RecallTarget;
  readonly end: RecallEnd;
  /**
   * The client's verdict: `VERIFIED_INTACT` for `TRIAGED` and `UNTRIAGEABLE`; the finding for
   * `NOT_INTACT` (never `VERIFIED_INTACT`); `null` for an unproven `NOT_FOUND` or
   * `INVALID_REQUEST`, and for `AWAITING_INTEGRATION`.
   */
  readonly verdict: VerificationVerdict | null;
  /** Why, in words. */
  readonly reason: string;
  /**
   * Who found a `NOT_INTACT`: the client itself, or triage (its unproven claim, passed on); else
   * `null`. A recall without triage (`recallDirect`) is always `client`: no triage function ran
   * (its unproven reading says so in `reason`).
   */
  readonly detectedBy: 'client' | 'triage' | null;
  /** The proven record (`TRIAGED`, `UNTRIAGEABLE`), else `null`. */
  readonly record: SealedRecord | null;
  /** The record's inclusion proof in `checkpoint`, when proven. */
  readonly inclusion: RecordProof | null;
  /** The delta recomputed from the proven record and the caller's environment (`TRIAGED` only). */
  readonly delta: DeltaIsolationReport | null;
  /**
   * The lineage tree the answer proved the record in (also on some findings, for the reader): a
   * signed lineage checkpoint (`note`), or the tree of a head the sealer MAC'd (`note` `null`),
   * vouched for by the deployment index (`freshness`).
   */
  readonly checkpoint: StoredTreeHead | null;
  readonly checks: RecallChecks;
  /**
   * Whether a rollback was checked against lineage checkpoints only (`checks.truncationCheckedAgainst`
   * is not empty); the deployment checkpoint's check is `checks.deployment` (kept or witnessed).
   */
  readonly truncationChecked: boolean;
  /** Triage's refusal, when it refused; `proven` says whether the client confirmed it. */
  readonly refusal: RecallRefusal | null;
  /** Triage's answer as stored: diagnostic only, never acted on or rendered as the outcome. */
  readonly report: TriageCompletedDetail;
  /**
   * Where the record (or its absence) stands against the deployment log; `null` when this client
   * checks no freshness, the recall ended before a record was proven, or the chain says nothing.
   */
  readonly freshness: Freshness | null;
}

/** What {@link decideRecall} decides from. */
export interface RecallDecisionInput {
  readonly requestId: string;
  readonly lineageId: string;
  readonly target: RecallTarget;
  /** The stored answer (validated, for this request). */
  readonly report: TriageCompletedDetail;
  /** The client's checks of the answer, in order, the last one standing. */
  readonly check: RecallCheck;
  readonly newestSize: number | null;
  readonly truncationCheckedAgainst: readonly TruncationReference[];
  /** Where the recall stands against the deployment log (default `null`: not checked). */
  readonly freshness?: Freshness | null;
  /** The deployment checkpoint the chain verified (default `null`). */
  readonly deployment?: DeploymentRollbackCheck | null;
  /** Whether the client keeps checkpoints (default `false`). */
  readonly keepsCheckpoints?: boolean;
  /** Whether the client reads the deployment log (default `false`). */
  readonly readsDeploymentLog?: boolean;
  /** Who wrote the answer: triage (default), or the client itself (`recallDirect`). */
  readonly answeredBy?: 'triage' | 'client';
}

/**
 * Decides a recall's end from the client's own check: proven and triaged → `TRIAGED`; proven and
 * untriageable → `UNTRIAGEABLE`; a record only the sealer vouches for yet → `AWAITING_INTEGRATION`
 * (verdict `null`); an unproven `NOT_FOUND` / `INVALID_REQUEST` the log does not contradict →
 * those; anything else → `NOT_INTACT`, whose verdict is never `VERIFIED_INTACT` nor
 * `null` (a proven record without a delta, or an unproven refusal of another kind, is
 * `UNVERIFIED_TAMPER_RISK`: fail closed).
 */
export function decideRecall(input: RecallDecisionInput): VerifiedRecall {
  const { check, report } = input;
  const end = endOf(check);
  const intact = end === RecallEnd.TRIAGED || end === RecallEnd.UNTRIAGEABLE;
  const verdict =
    end === RecallEnd.NOT_INTACT
      ? check.verdict === null || check.verdict === V.VERIFIED_INTACT
        ? V.UNVERIFIED_TAMPER_RISK
        : check.verdict
      : check.verdict;
  // Triage's own finding, passed on unproven: a refusal without a record this client examined.
  const byTriage =
    input.answeredBy !== 'client' &&
    (check.verdict === null ||
      (report.outcome === TriageOutcome.REFUSED &&
        report.refusalCode === RefusalCode.VERIFICATION_FAILED &&
        check.record === null));
  return {
    requestId: input.requestId,
    lineageId: input.lineageId,
    target: input.target,
    end,
    verdict,
    reason: check.reason,
    detectedBy: end === RecallEnd.NOT_INTACT ? (byTriage ? 'triage' : 'client') : null,
    record: intact ? check.record : null,
    inclusion: intact ? check.inclusion : null,
    delta: end === RecallEnd.TRIAGED ? check.delta : null,
    checkpoint: check.checkpoint,
    checks: {
      checkpointSize: check.checkpoint?.size ?? null,
      newestSize: input.newestSize,
      truncationCheckedAgainst: input.truncationCheckedAgainst,
      deployment: input.deployment ?? null,
      keepsCheckpoints: input.keepsCheckpoints ?? false,
      readsDeploymentLog: input.readsDeploymentLog ?? false,
    },
    truncationChecked: input.truncationCheckedAgainst.length > 0,
    refusal: check.refusal,
    report,
    freshness: input.freshness ?? null,
  };
}

function endOf(check: RecallCheck): RecallEnd {
  if (check.awaitingIntegration && check.verdict === null) return RecallEnd.AWAITING_INTEGRATION;
  if (check.verdict === V.VERIFIED_INTACT && check.record) {
    if (check.delta) return RecallEnd.TRIAGED;
    if (check.refusal?.code === RefusalCode.MANIFEST_UNTRIAGEABLE && check.refusal.proven) {
      return RecallEnd.UNTRIAGEABLE;
    }
    return RecallEnd.NOT_INTACT;
  }
  if (check.verdict === null && check.refusal?.code === RefusalCode.NOT_FOUND) return RecallEnd.NOT_FOUND;
  if (check.verdict === null && check.refusal?.code === RefusalCode.INVALID_REQUEST) {
    return RecallEnd.INVALID_REQUEST;
  }
  return RecallEnd.NOT_INTACT;
}
