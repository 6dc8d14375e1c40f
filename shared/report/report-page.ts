import type { ClaimState } from './claim-state';

/**
 * The data of a drift report page (docs/cli.md, "reseal report"): what `reseal report` and
 * `npm run demo` draw, built only from values the client verified. Strings that come from the
 * table (ids, reasons) are carried as data and escaped where the page shows them.
 */

/** One record of the timeline; fields are `null` when a record that failed verification lacks them. */
export interface ReportRecord {
  readonly seq: number | null;
  readonly generationEpoch: number | null;
  readonly sealedAtMs: number | null;
  readonly residualId: string | null;
  readonly sessionId: string | null;
  /** Seq of the record this one supersedes, or `null`. */
  readonly supersedesSeq: number | null;
  /** The record's own verification verdict (docs/sealing.md, "Verification"). */
  readonly verification: string;
}

/**
 * One column of the heatmap: a recall the client verified (the demo), or a supersession read
 * from two verified records (a stored lineage), with what became of each claim.
 */
export interface ReportRecall {
  /** Column label, unique in the lineage (`#3`, `seq 2 → 3`). */
  readonly label: string;
  /** Delta verdict (docs/triage.md), or `null` when the recall was refused or the column is a supersession. */
  readonly verdict: string | null;
  readonly claims: readonly { readonly claimId: string; readonly state: ClaimState }[];
  /** Keys that drifted and mattered (changed, vanished or appeared), sorted. */
  readonly driftedKeys: readonly string[];
}

/** A guard rejection or a sealer conflict, with whether its signed statement checked. */
export interface ReportRefusal {
  readonly kind: 'rejection' | 'conflict';
  readonly atMs: number;
  readonly reason: string;
  readonly residualId: string | null;
  /** `true`: the deciding function's signature checked; `false`: it did not (do not trust); `null`: not checked. */
  readonly signatureVerified: boolean | null;
}

/** A signed checkpoint (or receipt) and what its verification said. */
export interface ReportCheckpoint {
  /** What it is (`latest signed checkpoint`, `receipt for seq 0`). */
  readonly label: string;
  /** Tree size it covers, or `null` when it did not verify or there is none. */
  readonly size: number | null;
  /**
   * `VERIFIED_INTACT`, another verdict, `NOT_CHECKED`, or `SEALED_AWAITING_INTEGRATION` (the tree
   * head the index holds, with records sealed past it: docs/cli.md, `reseal report`).
   */
  readonly state: string;
  readonly detail: string;
}

/** Everything the page shows of one lineage. */
export interface LineageReport {
  readonly lineageId: string;
  /** The whole chain's verdict. */
  readonly verdict: string;
  /** `seq N: VERDICT: reason` of the first failure, or `null`. */
  readonly firstFailure: string | null;
  readonly records: readonly ReportRecord[];
  readonly recalls: readonly ReportRecall[];
  readonly refusals: readonly ReportRefusal[];
  readonly checkpoints: readonly ReportCheckpoint[];
}

/** A whole report page: one or more lineages. */
export interface ReportPage {
  readonly title: string;
  /** One line under the title (where the data came from). */
  readonly subtitle: string;
  /** When the page was made, ms since the Unix epoch (UTC). */
  readonly generatedAtMs: number;
  readonly lineages: readonly LineageReport[];
}
