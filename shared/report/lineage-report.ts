import type { ChainVerification } from '../seal/chain-verification';
import { type SealedRecord, SealedRecordSchema } from '../seal/sealed-record';
import { VerificationVerdict } from '../seal/verification-verdict';
import { type ClaimState, ClaimState as ClaimStates } from './claim-state';
import type { LineageReport, ReportCheckpoint, ReportRecall, ReportRecord, ReportRefusal } from './report-page';

/** What {@link lineageReport} reads: a lineage's records as stored and the client's verification of them. */
export interface LineageReportInput {
  readonly lineageId: string;
  /** The records as read (untrusted), in sequence order. */
  readonly records: readonly unknown[];
  /** The client's verification of `records` (one verdict per record, same order). */
  readonly verification: ChainVerification;
  readonly refusals?: readonly ReportRefusal[];
  readonly checkpoints?: readonly ReportCheckpoint[];
  /** Heatmap columns the client verified itself (the demo's recalls); default: one per verified supersession. */
  readonly recalls?: readonly ReportRecall[];
}

/**
 * The report of one lineage (docs/cli.md, "reseal report"). Every record is on the timeline with
 * its own verdict; claims and drifted keys are read only from records that verified
 * (`VERIFIED_INTACT`), so nothing the heatmap shows comes from an item the table writer could forge.
 *
 * Without `recalls`, each supersession between two verified records is a column: a claim of the
 * superseded record is `retained` when the new record seals it on the same keys with the same
 * baseline hashes, `re-probed` when it is sealed again on other keys or values, `invalidated`
 * when the new record drops it; the drifted keys are the claims' keys whose baseline hash changed,
 * appeared or vanished.
 */
export function lineageReport(input: LineageReportInput): LineageReport {
  const { verification } = input;
  const verified = new Map<number, SealedRecord>();
  input.records.forEach((raw, index) => {
    if (verification.records[index]?.verdict !== VerificationVerdict.VERIFIED_INTACT) return;
    const parsed = SealedRecordSchema.safeParse(raw);
    if (parsed.success) verified.set(parsed.data.header.monotonicSequenceNumber, parsed.data);
  });
  const failure = verification.firstFailure;
  return {
    lineageId: input.lineageId,
    verdict: verification.verdict,
    firstFailure: failure ? `seq ${failure.seq ?? '?'}: ${failure.verdict}: ${failure.reason}` : null,
    records: input.records.map((raw, index) => reportRecord(raw, verification.records[index]?.verdict)),
    recalls: input.recalls ?? supersessionColumns(verified),
    refusals: [...(input.refusals ?? [])].sort((a, b) => a.atMs - b.atMs),
    checkpoints: input.checkpoints ?? [],
  };
}

/** A timeline row from a raw record: its fields when they have the right type, else `null`. */
function reportRecord(raw: unknown, verdict: string | undefined): ReportRecord {
  const record = (typeof raw === 'object' && raw !== null ? raw : {}) as {
    header?: Record<string, unknown>;
    sealedAtMs?: unknown;
  };
  const header = typeof record.header === 'object' && record.header !== null ? record.header : {};
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  const supersedes = header.supersedes as { seq?: unknown } | null | undefined;
  return {
    seq: num(header.monotonicSequenceNumber),
    generationEpoch: num(header.generationEpoch),
    sealedAtMs: num(record.sealedAtMs),
    residualId: str(header.residualId),
    sessionId: str(header.sessionId),
    supersedesSeq: supersedes && typeof supersedes === 'object' ? num(supersedes.seq) : null,
    verification: verdict ?? VerificationVerdict.UNVERIFIED_TAMPER_RISK,
  };
}

function supersessionColumns(verified: ReadonlyMap<number, SealedRecord>): ReportRecall[] {
  const columns: ReportRecall[] = [];
  for (const [seq, record] of [...verified].sort(([a], [b]) => a - b)) {
    const supersededSeq = record.header.supersedes?.seq;
    const old = supersededSeq === undefined ? undefined : verified.get(supersededSeq);
    if (old === undefined) continue;
    const before = old.manifest;
    const after = record.manifest;
    const hashChanged = (key: string) => before.baselineKeyHashes[key] !== after.baselineKeyHashes[key];
    const drifted = new Set<string>();
    const claims = Object.keys(before.claimDependencyMap)
      .sort()
      .map((claimId): { claimId: string; state: ClaimState } => {
        const oldKeys = before.claimDependencyMap[claimId] ?? [];
        const newKeys = after.claimDependencyMap[claimId];
        for (const key of [...oldKeys, ...(newKeys ?? [])]) if (hashChanged(key)) drifted.add(key);
        if (newKeys === undefined) return { claimId, state: ClaimStates.INVALIDATED };
        const same = newKeys.length === oldKeys.length && newKeys.every((k, i) => k === oldKeys[i] && !hashChanged(k));
        return { claimId, state: same ? ClaimStates.RETAINED : ClaimStates.REPROBED };
      });
    columns.push({
      label: `seq ${old.header.monotonicSequenceNumber} → ${seq}`,
      verdict: null,
      claims,
      driftedKeys: [...drifted].sort(),
    });
  }
  return columns;
}
