import { ResealError } from '../errors';
import type { RecallTarget } from '../pipeline/recall-target';
import { RefusalCode } from '../pipeline/refusal-code';
import { type TriageCompletedDetail, TriageCompletedDetailSchema } from '../pipeline/triage-completed-detail';
import { TriageOutcome } from '../pipeline/triage-outcome';
import type { SealedRecord } from '../seal/sealed-record';
import { VerificationVerdict as V, type VerificationVerdict } from '../seal/verification-verdict';
import type { DeltaIsolationReport } from '../triage/delta-isolation-report';
import { isolateDelta } from '../triage/isolate-delta';
import { triageReportDigest } from '../triage/triage-report-digest';
import { checkpointOrigin } from './checkpoint-origin';
import type { StoredTreeHead } from './latest-checkpoint';
import type { NoteVerifierKey } from './note-key';
import { checkRecallTarget } from './recall-target-check';
import { type RecordProof, verifyRecordProof } from './record-proof';
import { checkConsistency } from './tree-consistency';
import { openCheckpoint, type VerifiedCheckpoint } from './verified-checkpoint';

/** What a client checks a triage answer with. Everything but `key`, `trusted` and `currentEnv` is untrusted. */
export interface RecallCheckInput {
  /** The stored triage report (a `TriageCompleted` detail), as read from the table. */
  readonly report: unknown;
  /** The stored record at the seq the answer's proof names, as read from the table (`null`: absent). */
  readonly record: unknown | null;
  /** The log's verifier key (pinned by the client, never read from the table). */
  readonly key: NoteVerifierKey;
  readonly lineageId: string;
  readonly requestId: string;
  /** The target the client asked for. */
  readonly target: RecallTarget;
  /** The environment the client sent: the delta is recomputed against it. */
  readonly currentEnv: Readonly<Record<string, string>>;
  /** The last checkpoint the client verified for this lineage, or `null`. */
  readonly trusted: VerifiedCheckpoint | null;
  /**
   * Who built the answer: `triage` (its stored report; the default) or `client` (the client's own
   * reading of the table, a recall without triage): named in the reason of a refusal the client
   * could not confirm, so the message says whose unproven claim it passes on.
   */
  readonly answeredBy?: 'triage' | 'client';
}

/** The client's own answer to a recall (docs/verifiable-log.md, "Recall"). */
export interface RecallCheck {
  /**
   * The client's verdict on the record: `VERIFIED_INTACT` only when the record is proven in a
   * signed checkpoint (consistent with `trusted`), is the target, and the answer's delta equals
   * the one recomputed here; `null` when no record was examined (an unproven refusal).
   */
  readonly verdict: VerificationVerdict | null;
  readonly reason: string;
  /** The proven record, when `verdict` is `VERIFIED_INTACT`. */
  readonly record: SealedRecord | null;
  /** The proven record's inclusion proof in `checkpoint`, when `verdict` is `VERIFIED_INTACT`. */
  readonly inclusion: RecordProof | null;
  /** The delta recomputed from the proven record and `currentEnv` (never the stored one). */
  readonly delta: DeltaIsolationReport | null;
  /**
   * The lineage tree the answer proved the record in: a signed lineage checkpoint (`note`, to keep
   * when newer), or the tree head triage read from a head the sealer MAC'd (`note` `null`), which
   * proves nothing until the client ties it to the tree head the index vouches for (`Recalls`,
   * docs/verifiable-log.md, "Recall", step 4).
   */
  readonly checkpoint: StoredTreeHead | null;
  /** Whether a trusted checkpoint was compared (without one, a rollback cannot be seen). */
  readonly truncationChecked: boolean;
  /** Triage's refusal, when it refused; `proven` says whether the client could confirm it. */
  readonly refusal: { readonly code: RefusalCode; readonly reason: string; readonly proven: boolean } | null;
  /**
   * The record is sealed, awaiting integration: proven only in a tree no one vouches for yet (a
   * head the sealer MAC'd, past the head the index holds), so `verdict` is `null` and nothing of
   * the record is passed on: neither proven memory nor tampering (docs/verifiable-log.md, "Recall").
   */
  readonly awaitingIntegration?: boolean;
}

/**
 * Checks a triage answer with public keys alone and recomputes the delta: what a client acts on
 * never comes from an item a table writer can forge (docs/verifiable-log.md, "Recall"). A forged,
 * replayed or edited answer yields a tamper or unverified verdict, never another answer.
 *
 * Steps: the report's schema, request and lineage; the tree the record is proven in: the signed
 * checkpoint (key, origin; the tree head it names must be that tree) or, for a head the sealer
 * MAC'd, the tree head the answer names (unvouched here: the caller ties it to the index); the
 * consistency proof from `trusted` (smaller → `TRUNCATION_DETECTED`, fork → `LINEAGE_BROKEN`);
 * the record's integrity and inclusion at leaf = seq; the record is the target (`latest`: the
 * last leaf); then `isolateDelta(record.manifest, currentEnv)`, whose digest must equal the
 * report's (else `HASH_MISMATCH`). A refusal without a proof is passed on as unproven, except a
 * `NOT_FOUND` for a seq the trusted checkpoint covers (`TRUNCATION_DETECTED`).
 */
export function checkRecallAnswer(input: RecallCheckInput): RecallCheck {
  const { key, lineageId, trusted } = input;
  const base = {
    record: null,
    inclusion: null,
    delta: null,
    checkpoint: null,
    truncationChecked: trusted !== null,
    refusal: null,
  };
  const fail = (verdict: VerificationVerdict, reason: string, extra: Partial<RecallCheck> = {}): RecallCheck => ({
    ...base,
    verdict,
    reason,
    ...extra,
  });
  const parsed = TriageCompletedDetailSchema.safeParse(input.report);
  if (!parsed.success) return fail(V.UNVERIFIED_TAMPER_RISK, 'the stored triage answer is malformed');
  const report: TriageCompletedDetail = parsed.data;
  if (report.requestId !== input.requestId || report.lineageId !== lineageId) {
    return fail(
      V.UNVERIFIED_TAMPER_RISK,
      `the stored answer is for request ${report.requestId} of ${report.lineageId}`,
    );
  }
  const refusal = report.refusalCode
    ? { code: report.refusalCode, reason: report.refusalReason ?? '', proven: false }
    : null;
  if (report.proof === null) return unprovenRefusal(report, refusal, input);

  const origin = checkpointOrigin(key.name, lineageId);
  const { treeHead } = report.proof;
  let latest: StoredTreeHead;
  if (report.proof.checkpoint !== null) {
    try {
      latest = openCheckpoint(report.proof.checkpoint, key, origin);
    } catch (error) {
      if (!(error instanceof ResealError)) throw error;
      return fail(V.HASH_MISMATCH, `the answer's checkpoint does not verify: ${error.message}`, { refusal });
    }
    if (
      treeHead &&
      (treeHead.treeSize !== latest.size || treeHead.rootHash !== Buffer.from(latest.rootHash).toString('hex'))
    ) {
      return fail(V.HASH_MISMATCH, "the answer's tree head is not the tree its signed checkpoint signs", { refusal });
    }
  } else if (treeHead) {
    latest = {
      origin,
      size: treeHead.treeSize,
      rootHash: Uint8Array.from(Buffer.from(treeHead.rootHash, 'hex')),
      note: null,
    };
  } else {
    return fail(V.UNVERIFIED_TAMPER_RISK, 'the answer names no tree its record is proven in', { refusal });
  }
  if (trusted) {
    if (report.proof.consistency === null && trusted.size !== latest.size) {
      return fail(V.UNVERIFIED_TAMPER_RISK, 'the answer carries no consistency proof from the trusted checkpoint', {
        refusal,
      });
    }
    const consistency = report.proof.consistency ?? { fromSize: trusted.size, toSize: latest.size, proof: [] };
    const checked = checkConsistency(trusted, latest, consistency);
    if (checked.verdict !== V.VERIFIED_INTACT) return fail(checked.verdict, checked.reason, { refusal });
  }
  const proven = verifyRecordProof(input.record, report.proof.inclusion, latest, lineageId);
  if (proven.verdict !== V.VERIFIED_INTACT) return fail(proven.verdict, proven.reason, { checkpoint: latest, refusal });
  const record = proven.record;
  const seq = record.header.monotonicSequenceNumber;
  const misnamed =
    seq !== report.proof.seq
      ? `the answer's proof names seq ${report.proof.seq} but proves seq ${seq}`
      : record.recordHash !== report.proof.recordHash
        ? `the answer's proof names record hash ${report.proof.recordHash} but proves ${record.recordHash} at seq ${seq}`
        : report.seq !== seq
          ? `the answer names seq ${report.seq} but its proof proves seq ${seq}`
          : null;
  if (misnamed) return fail(V.LINEAGE_BROKEN, misnamed, { checkpoint: latest });
  const wrongTarget = checkRecallTarget(input.target, record, latest.size);
  if (wrongTarget) return fail(wrongTarget.verdict, wrongTarget.reason, { checkpoint: latest });
  let delta: DeltaIsolationReport;
  try {
    delta = isolateDelta(record.manifest, input.currentEnv);
  } catch (error) {
    if (!(error instanceof ResealError)) throw error;
    const untriageable = {
      code: RefusalCode.MANIFEST_UNTRIAGEABLE,
      reason: `delta isolation refused: ${error.message}`,
      proven: true,
    };
    return {
      ...base,
      verdict: V.VERIFIED_INTACT,
      reason: 'record proven; its manifest cannot be triaged',
      record,
      inclusion: report.proof.inclusion,
      checkpoint: latest,
      refusal: untriageable,
    };
  }
  if (
    report.outcome !== TriageOutcome.TRIAGED ||
    !report.report ||
    triageReportDigest(report.report) !== triageReportDigest(delta)
  ) {
    return fail(V.HASH_MISMATCH, 'the stored triage report does not match the proven record and this environment', {
      checkpoint: latest,
    });
  }
  return {
    ...base,
    verdict: V.VERIFIED_INTACT,
    reason: `record proven in ${latest.note === null ? "the head item's tree" : 'the signed checkpoint'} of ${latest.size} records${
      trusted
        ? `, consistent with the trusted one of ${trusted.size}`
        : ' (no trusted checkpoint: a rollback could not be checked)'
    }`,
    record,
    inclusion: report.proof.inclusion,
    delta,
    checkpoint: latest,
  };
}

/** A refusal without a proof: passed on as triage's claim, or shown false by the trusted checkpoint. */
function unprovenRefusal(
  report: TriageCompletedDetail,
  refusal: RecallCheck['refusal'],
  input: RecallCheckInput,
): RecallCheck {
  const base = {
    record: null,
    inclusion: null,
    delta: null,
    checkpoint: null,
    truncationChecked: input.trusted !== null,
    refusal,
  };
  if (report.outcome === TriageOutcome.TRIAGED) {
    return { ...base, verdict: V.UNVERIFIED_TAMPER_RISK, reason: 'the stored answer carries no proof' };
  }
  const { target, trusted } = input;
  if (report.refusalCode === RefusalCode.NOT_FOUND && trusted) {
    const covered = ('seq' in target && target.seq < trusted.size) || ('latest' in target && trusted.size > 0);
    if (covered) {
      return {
        ...base,
        verdict: V.TRUNCATION_DETECTED,
        reason: `the answer says the record does not exist, but a trusted checkpoint covers ${trusted.size} records`,
      };
    }
  }
  const claimed = report.verification?.verdict ?? null;
  return {
    ...base,
    verdict: claimed === V.VERIFIED_INTACT ? V.UNVERIFIED_TAMPER_RISK : claimed,
    reason:
      input.answeredBy === 'client'
        ? `${report.refusalReason ?? `refused (${report.refusalCode})`} [this client's reading of the table, not proven]`
        : `${report.refusalReason ?? `triage refused (${report.refusalCode})`} [triage's finding, not proven to this client]`,
  };
}
