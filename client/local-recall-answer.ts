import { FORMAT_VERSION } from '../shared/canonical/hash-domain';
import { ResealError } from '../shared/errors';
import type { RecallProof } from '../shared/log/recall-proof';
import type { VerifiedCheckpoint } from '../shared/log/verified-checkpoint';
import type { RecallRequestedDetail } from '../shared/pipeline/recall-requested-detail';
import { RefusalCode } from '../shared/pipeline/refusal-code';
import type { TriageCompletedDetail } from '../shared/pipeline/triage-completed-detail';
import { TriageOutcome } from '../shared/pipeline/triage-outcome';
import { triagedDetail } from '../shared/pipeline/triaged-detail';
import type { LineageStore } from '../shared/ports/lineage-store';
import { clipText } from '../shared/schemas/clip-text';
import { escapeLoneSurrogates } from '../shared/schemas/escape-lone-surrogates';
import { VerificationVerdict as V, type VerificationVerdict } from '../shared/seal/verification-verdict';
import { isolateDelta } from '../shared/triage/isolate-delta';
import { LogVerificationError } from './errors';
import type { LatestCheckpoint, LogReader } from './log-reader';
import { searchLoggedSeal } from './logged-seal-search';

/** What {@link localRecallAnswer} reads with: the log reader, and the marker of a residual id. */
export interface LocalRecallReads {
  readonly log: Pick<LogReader, 'proveIn' | 'consistency'>;
  readonly store: Pick<LineageStore, 'findByResidualId'>;
  /** Clock of the answer's `completedAtMs`, ms since the Unix epoch. */
  readonly nowMs: () => number;
}

/**
 * The answer triage would give a recall, built by the client from its own reads
 * (docs/verifiable-log.md, "Recall", "Without triage"): the head item's tree `newest` (already
 * read and shown consistent with the kept checkpoint by `LogReader.latest`), the target's seq (the
 * last leaf, the seq asked, or the residual id's marker), the record with its inclusion proof in
 * that tree, the consistency proof from `trusted`, and the delta against `request.currentEnv`.
 * A marker that leads to a record of another residual id only locates: the record of the residual
 * id is searched for in that tree, and none found is a `VERIFICATION_FAILED` refusal
 * (`UNVERIFIED_TAMPER_RISK`), never a finding against the lineage. A marker naming no valid seq is no
 * usable marker: `NOT_FOUND`, as a deleted one, so the recall searches for a seal it hides.
 * Refusals are triage's (`NOT_FOUND`, `VERIFICATION_FAILED`, `MANIFEST_UNTRIAGEABLE`). It is an
 * answer like triage's, not a verdict: `Recalls` decides it with the same steps, so nothing read
 * here is acted on before it is proven.
 *
 * @returns the answer (a `TriageCompletedDetail`) and the record it names, as read (`null`: none)
 * @throws what the table reads throw (an outage), never for a forged or hidden item
 */
export async function localRecallAnswer(
  reads: LocalRecallReads,
  request: RecallRequestedDetail,
  newest:
    | LatestCheckpoint
    | null
    | { readonly finding: { readonly verdict: VerificationVerdict; readonly reason: string } },
  trusted: VerifiedCheckpoint | null,
): Promise<{ readonly answer: TriageCompletedDetail; readonly record: unknown }> {
  const { lineageId, target } = request;
  const base = {
    formatVersion: FORMAT_VERSION,
    requestId: request.requestId,
    lineageId,
    residualId: 'residualId' in target ? target.residualId : null,
    completedAtMs: reads.nowMs(),
  };
  // Well-formed and within the schema's bound, as triage words it: a reason may quote a hostile stored string.
  const text = (reason: string) => clipText(escapeLoneSurrogates(reason), 4000);
  const refused = (
    code: RefusalCode,
    reason: string,
    seq: number | null,
    verdict: VerificationVerdict | null = null,
    proof: RecallProof | null = null,
  ) => ({
    answer: {
      ...base,
      seq,
      outcome: TriageOutcome.REFUSED,
      verification: verdict
        ? {
            verdict,
            firstFailure: verdict === V.VERIFIED_INTACT ? null : { seq, verdict, reason: text(reason) },
          }
        : null,
      report: null,
      proof,
      refusalReason: text(reason),
      refusalCode: code,
    },
    record: null,
  });
  if (newest === null) return refused(RefusalCode.NOT_FOUND, 'no such lineage: it has no records', null);
  if ('finding' in newest)
    return refused(RefusalCode.VERIFICATION_FAILED, newest.finding.reason, null, newest.finding.verdict);
  const { checkpoint } = newest;
  let seq: number | null;
  if ('seq' in target) seq = target.seq;
  else if ('latest' in target) seq = checkpoint.size - 1;
  else {
    const location = await reads.store.findByResidualId(lineageId, target.residualId);
    seq = location && location.lineageId === lineageId ? location.seq : null;
    if (seq !== null && !(Number.isSafeInteger(seq) && seq >= 0)) {
      // No record can sit there: the marker is edited, so it locates nothing, as a deleted one.
      // NOT_FOUND lets `Recalls` search the index and the records past it, which prove a seal it
      // hides (docs/verifiable-log.md, "Without triage"); nothing proves the lineage broken.
      return refused(
        RefusalCode.NOT_FOUND,
        `no usable marker: the residual-id marker of ${target.residualId} names no valid seq`,
        null,
      );
    }
  }
  if (seq === null || seq < 0) return refused(RefusalCode.NOT_FOUND, 'no such record in this lineage', null);
  if (seq >= checkpoint.size) {
    return refused(
      RefusalCode.NOT_FOUND,
      `no record at seq ${seq}: the lineage's head covers ${checkpoint.size} records (if it was just appended, recall again)`,
      seq,
    );
  }
  let proven: Awaited<ReturnType<LogReader['proveIn']>>;
  try {
    proven = await reads.log.proveIn(lineageId, seq, newest);
  } catch (error) {
    if (!(error instanceof LogVerificationError)) throw error;
    return refused(RefusalCode.VERIFICATION_FAILED, error.reason, seq, error.verdict);
  }
  let consistency: RecallProof['consistency'] = null;
  if (trusted && trusted.size !== checkpoint.size) {
    const built = await reads.log.consistency(lineageId, trusted, checkpoint);
    if ('kind' in built) return refused(RefusalCode.VERIFICATION_FAILED, built.reason, null, built.verdict);
    consistency = built;
  }
  if ('residualId' in target && proven.record.header.residualId !== target.residualId) {
    // The marker is an item a table writer can edit: it locates, never proves. A record of another
    // residual id under it is looked past, as a marker naming another lineage is.
    const marked = `the residual-id marker of ${target.residualId} points at seq ${seq}, which seals ${proven.record.header.residualId}`;
    const found = await searchPastMarker(reads, lineageId, target.residualId, newest);
    if (found === null || 'reason' in found) {
      return refused(
        RefusalCode.VERIFICATION_FAILED,
        found === null
          ? `${marked}, and no record proven in the head's tree of ${checkpoint.size} seals it`
          : `${marked}, and the search for it stopped: ${found.reason}`,
        null,
        V.UNVERIFIED_TAMPER_RISK,
      );
    }
    seq = found.seq;
    proven = found.proven;
  }
  const { record } = proven;
  const proof: RecallProof = {
    checkpoint: checkpoint.note,
    treeHead: { treeSize: checkpoint.size, rootHash: Buffer.from(checkpoint.rootHash).toString('hex') },
    seq,
    recordHash: record.recordHash,
    inclusion: proven.inclusion,
    consistency,
  };
  try {
    const report = isolateDelta(record.manifest, request.currentEnv);
    return { answer: triagedDetail(base, record.header, report, proof), record };
  } catch (error) {
    if (!(error instanceof ResealError)) throw error;
    const untriageable = refused(
      RefusalCode.MANIFEST_UNTRIAGEABLE,
      `delta isolation refused: ${error.message}`,
      seq,
      V.VERIFIED_INTACT,
      proof,
    );
    return { answer: { ...untriageable.answer, residualId: record.header.residualId }, record };
  }
}

/**
 * The record of `residualId` among the lineage's records proven in `newest`, newest first, at
 * most `MAX_HIDDEN_SEAL_SCAN` (`searchLoggedSeal`, the search `publish --wait` runs), with its inclusion proof;
 * `null` when none of them seals it, or the finding that stopped the search (a record that does
 * not prove).
 */
async function searchPastMarker(
  reads: LocalRecallReads,
  lineageId: string,
  residualId: string,
  newest: LatestCheckpoint,
): Promise<
  | { readonly seq: number; readonly proven: Awaited<ReturnType<LogReader['proveIn']>> }
  | { readonly reason: string }
  | null
> {
  try {
    const search = await searchLoggedSeal(reads.log, { lineageId, residualId, latest: newest });
    if (search.kind !== 'FOUND') return null;
    return { seq: search.seq, proven: await reads.log.proveIn(lineageId, search.seq, newest) };
  } catch (error) {
    if (!(error instanceof LogVerificationError)) throw error;
    return { reason: error.reason };
  }
}
