import type { WrittenBy } from '../../client/written-by';
import { DeltaVerdict } from '../../shared/triage/delta-isolation-report';

/** One recall of one lineage at one snapshot, as the triage Lambda answered it. */
export interface RecallResult {
  readonly lineageId: string;
  /** The lineage's short name (`node-build`, …). */
  readonly lineage: string;
  readonly snapshotIndex: number;
  readonly imageVersion: string;
  /** Seq of the record recalled (the lineage's latest), `null` when none was found. */
  readonly recalledSeq: number | null;
  /** `TRIAGED`, or `REFUSED` when verification failed before triage. */
  readonly outcome: 'TRIAGED' | 'REFUSED';
  /** Chain verification verdict (docs/sealing.md), `null` when no record was found. */
  readonly verification: string | null;
  /** Whether the client proved the record by inclusion in a vouched-for tree (the index under the deployment checkpoint, or a signed lineage checkpoint). */
  readonly proven: boolean;
  /** Delta verdict (docs/triage.md), `null` when refused. */
  readonly verdict: DeltaVerdict | null;
  /** Keys changed, vanished or appeared since the record's baseline (all of them). */
  readonly driftedKeyCount: number;
  /**
   * The drifted keys that mattered: structural keys that drifted, causal keys of invalidated
   * claims, and keys the record declared absent that appeared.
   */
  readonly mattered: readonly string[];
  /** Keys the recalled record declared absent (in its manifest) that appeared. */
  readonly absentAppeared: readonly string[];
  /** Claims quarantined because a key they rest on the absence of appeared. */
  readonly quarantinedOnAbsence: readonly string[];
  /** Claims triage retained. */
  readonly kept: readonly string[];
  /** Claims triage quarantined, re-probed and re-sealed. */
  readonly reprobed: readonly string[];
  /** Re-probed claims that could no longer be stated (every key of a choice gone). */
  readonly dropped: readonly string[];
  /** Seq of the superseding record sealed after the re-probe, `null` when none was needed. */
  readonly resealedSeq: number | null;
  /** Whether the whole-environment (composite) seal broke: a monolithic hash would have invalidated the record. */
  readonly environmentChanged: boolean;
}

/** The write with an unverified inherited variable, and what the guard did with it. */
export interface RefusedWriteResult {
  readonly lineageId: string;
  readonly residualId: string;
  readonly variableName: string;
  /** `GUARD` when the guard refused it. */
  readonly stage: string;
  /** `STALE_STATE` when the guard refused it for stale state. */
  readonly reason: string;
  readonly rejectedVariables: readonly { readonly name: string; readonly reason: string }[];
  /** The lineage head did not move. */
  readonly headUnchanged: boolean;
}

/**
 * One agent's signed write into another agent's lineage (docs/authorship.md, "Two refusals, in
 * order"), sent past its client's own check, and what became of it.
 */
export interface CrossWriteResult {
  /** The agent that signed it (its lineage's short name). */
  readonly by: string;
  /** The lineage it wrote into. */
  readonly intoLineageId: string;
  readonly into: string;
  readonly residualId: string;
  /** Whether the agent's own client refused to send it (it was then sent past the client). */
  readonly clientRefused: boolean;
  /** `SEALER` and `WRITER_NOT_ADMITTED` when refused as it should be. */
  readonly stage: string;
  readonly reason: string;
  /** Whether the refusal carries a signed statement (a writer refusal must not: it costs no `Sign`). */
  readonly signed: boolean;
  /** The lineage head did not move. */
  readonly headUnchanged: boolean;
}

/** Who wrote each record of a lineage, from its verified records (client/written-by.ts). */
export interface LineageWritersResult {
  readonly lineageId: string;
  readonly lineage: string;
  /** The key id of the agent's own writer key. */
  readonly agentKeyId: string;
  readonly verdict: string;
  readonly records: readonly { readonly seq: number | null; readonly writtenBy: WrittenBy | null }[];
}

/** The record edited behind the sealer's back, and what the recall after it said. */
export interface TamperResult {
  readonly lineageId: string;
  readonly seq: number;
  /** What was edited, e.g. `record.payload.claims.<id>.statement`. */
  readonly edited: string;
  readonly outcome: 'TRIAGED' | 'REFUSED';
  readonly verification: string | null;
  readonly firstFailure: { readonly seq: number | null; readonly verdict: string; readonly reason: string } | null;
}

/** The receipt step: one record's receipt checked offline with the tlog-policy alone (docs/demo.md, step 5). */
export interface ReceiptResult {
  readonly lineageId: string;
  readonly seq: number;
  /** 2: the deployment chain (docs/verifiable-log.md, "Receipts"); 1: a signed lineage checkpoint. */
  readonly formatVersion: 1 | 2;
  readonly verdict: string;
  /**
   * Size of the checkpoint the receipt proves the record under (format 2: the deployment
   * checkpoint, in leaves; format 1: the lineage checkpoint, in records), or `null` when it did not verify.
   */
  readonly checkpointSize: number | null;
  readonly reason: string;
}

/** Totals over the drift recalls (the tamper recall is reported apart). */
export interface DemoTotals {
  readonly recalls: number;
  readonly byVerdict: Record<DeltaVerdict, number>;
  /** Drift recalls refused before triage (0 when nothing was tampered with). */
  readonly refused: number;
  /** Σ claims in the recalled records. */
  readonly claimsChecked: number;
  readonly claimsKept: number;
  readonly claimsReprobed: number;
  /** Superseding records sealed after PARTIAL / FULL verdicts. */
  readonly reseals: number;
  /** What a single whole-environment hash would have done. */
  readonly monolithic: {
    /** Recalls whose environment differed from the record's in any key. */
    readonly invalidatedRecalls: number;
    /** Every claim of every such recall. */
    readonly claimsRederived: number;
  };
  /** Re-derivations triage saved: claims kept at the recalls the monolithic hash invalidated. */
  readonly claimsSaved: number;
  /**
   * Keys declared absent that appeared: at how many recalls, and how many claims resting on
   * their absence were quarantined (a format-1 manifest could not name them: ambient drift).
   */
  readonly declaredAbsent: { readonly recalls: number; readonly claimsQuarantined: number };
}

/** Everything `runDemo` did, structured so a test can check the counts. */
export interface DemoSummary {
  readonly runId: string;
  readonly endpoint: string;
  readonly series: string;
  readonly snapshots: {
    readonly count: number;
    readonly firstIndex: number;
    readonly lastIndex: number;
    readonly firstDate: string;
    readonly lastDate: string;
  };
  readonly lineages: readonly {
    readonly lineageId: string;
    readonly lineage: string;
    readonly claims: number;
    readonly records: number;
  }[];
  readonly recalls: readonly RecallResult[];
  readonly refusedWrite: RefusedWriteResult;
  /** Each of two agents writing into the other's lineage. */
  readonly crossWrites: readonly CrossWriteResult[];
  /** Who wrote each record, per lineage, before the tamper step. */
  readonly writers: readonly LineageWritersResult[];
  readonly tamper: TamperResult;
  readonly receipt: ReceiptResult;
  /** The deployment checkpoint the lineages were proven under; `null` when the backend checks no freshness. */
  readonly freshness: FreshnessResult | null;
  /** One lineage rolled back in the table, recalled by a successor with no local state; `null` when not run. */
  readonly rollback: RollbackResult | null;
  /** Recalls whose record the client proved by inclusion in a vouched-for tree, of all drift recalls. */
  readonly provenRecalls: number;
  readonly totals: DemoTotals;
  /** Expectations that did not hold (the guard let the write through, the tamper went unnoticed, …); empty on success. */
  readonly problems: readonly string[];
  readonly durationMs: number;
}

/**
 * The deployment checkpoint the lineages are proven under (docs/deployment-log.md, "Clients"), as
 * the client's own freshness result of a final recall of each lineage reports it.
 */
export interface FreshnessResult {
  /** Size of the largest deployment checkpoint the final recalls were checked against (leaves = integrations). */
  readonly checkpointSize: number | null;
  /** `UNWITNESSED` for the stack's default policy (the log key alone). */
  readonly witnessing: string;
  /** Freshness state of each lineage's final recall, by lineage short name (`PROVEN` when all is well). */
  readonly states: Readonly<Record<string, string>>;
  /** How many of the final recalls were `PROVEN`. */
  readonly proven: number;
}

/**
 * A table writer rolls one lineage back to an earlier, genuine state the sealer stored (head,
 * records and markers, MAC'd by the sealer) while the deployment log stays intact; a successor session with no
 * local state recalls it (docs/demo.md, "What happens").
 */
export interface RollbackResult {
  readonly lineageId: string;
  readonly lineage: string;
  /** Seq of the head the index holds (the newest record). */
  readonly headSeq: number;
  /** Seq of the head after the rollback (a genuinely signed, older state). */
  readonly rolledBackToSeq: number;
  /** `TRIAGED` would mean the rolled-back memory was acted on; `REFUSED` otherwise. */
  readonly outcome: 'TRIAGED' | 'REFUSED';
  /** The client's verdict, e.g. `UNVERIFIED_TAMPER_RISK`. */
  readonly verification: string | null;
  /** The client's freshness state, e.g. `NOT_NEWEST`; `null` when it checked none. */
  readonly freshnessState: string | null;
  readonly reason: string;
  /** Whether the lineage was put back to its newest state afterwards. */
  readonly restored: boolean;
}

/** Zero for every verdict, in `DeltaVerdict`'s order. */
export function emptyVerdictCounts(): Record<DeltaVerdict, number> {
  return {
    [DeltaVerdict.NO_DRIFT]: 0,
    [DeltaVerdict.AMBIENT_DRIFT_ONLY]: 0,
    [DeltaVerdict.PARTIAL_REPROBE_REQUIRED]: 0,
    [DeltaVerdict.FULL_RECONSTRUCTION_REQUIRED]: 0,
  };
}

/** Adds up the drift recalls: verdicts, claims kept and re-probed, and the monolithic comparison. */
export function totalsOf(recalls: readonly RecallResult[]): DemoTotals {
  const byVerdict = emptyVerdictCounts();
  let refused = 0;
  let claimsChecked = 0;
  let claimsKept = 0;
  let claimsReprobed = 0;
  let reseals = 0;
  let invalidatedRecalls = 0;
  let claimsRederived = 0;
  let claimsSaved = 0;
  let absentRecalls = 0;
  let claimsQuarantinedOnAbsence = 0;
  for (const r of recalls) {
    if (r.absentAppeared.length > 0) absentRecalls += 1;
    claimsQuarantinedOnAbsence += r.quarantinedOnAbsence.length;
    if (r.verdict === null) refused += 1;
    else byVerdict[r.verdict] += 1;
    const claims = r.kept.length + r.reprobed.length;
    claimsChecked += claims;
    claimsKept += r.kept.length;
    claimsReprobed += r.reprobed.length;
    if (r.resealedSeq !== null) reseals += 1;
    if (r.environmentChanged) {
      invalidatedRecalls += 1;
      claimsRederived += claims;
      claimsSaved += r.kept.length;
    }
  }
  return {
    recalls: recalls.length,
    byVerdict,
    refused,
    claimsChecked,
    claimsKept,
    claimsReprobed,
    reseals,
    monolithic: { invalidatedRecalls, claimsRederived },
    claimsSaved,
    declaredAbsent: { recalls: absentRecalls, claimsQuarantined: claimsQuarantinedOnAbsence },
  };
}
