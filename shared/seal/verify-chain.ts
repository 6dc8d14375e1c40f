import type { AdmissionKind } from '../authorship/admission';
import { admitWrite } from '../authorship/admit-write';
import { type LineagePolicy, policyDigest } from '../authorship/lineage-policy';
import { type RecordAttribution, recordAttribution } from '../authorship/record-attribution';
import type { HexDigest } from '../canonical/digest';
import { InvalidInputError } from '../errors';
import { parseInput } from '../schemas/parse';
import {
  type ChainVerification,
  type RecordVerification,
  type VerifyChainOptions,
  VerifyChainOptionsSchema,
} from './chain-verification';
import { genesisParentHash } from './genesis-parent-hash';
import { isIntact } from './is-intact';
import { type Candidate, type Failure, isDefiniteFailure, macFailures } from './mac-failures';
import { RECORD_FORMAT_WRITER_BOUND, type RecordHeader } from './record-header';
import { checkRecordIntegrity } from './record-integrity';
import type { SealedRecord } from './sealed-record';
import type { TrustedHead } from './trusted-head';
import { VerificationVerdict as V, type VerificationVerdict } from './verification-verdict';

const DEFAULT_MAC_CONCURRENCY = 8;

interface Link {
  readonly seq: number;
  readonly recordHash: HexDigest;
  readonly generationEpoch: number;
}

/**
 * Verifies a chain of sealed records of one lineage (docs/sealing.md,
 * "Verification"): walks every record in the order
 * given (never sorted: reordering must show), checks every link, reports the first bad record
 * and why, and detects truncation against a trusted checkpoint.
 *
 * Phase 1, key-free, over the whole chain. Per record, in this order (first failing check wins):
 * 1. known `formatVersion`, else `UNVERIFIED_TAMPER_RISK`; schema (`SealedRecordSchema`), else `HASH_MISMATCH`;
 * 2. `payloadHash`, `manifestDigest`, `variablesDigest` recomputed from payload, manifest and
 *    variablesUsed, `sealedAtMs` equal to the header's, `recordHash` recomputed from the header → `HASH_MISMATCH`;
 * 3. `lineageId` equals the option → `LINEAGE_BROKEN`;
 * 4. seq exactly previous + 1 from 0 (or `trustedStart.afterSeq + 1`): repeated or gone back →
 *    `SEQUENCE_REPLAYED`; ahead while the expected seq comes later (reordered) → `SEQUENCE_REPLAYED`;
 *    ahead and the expected seq absent (records deleted) → `LINEAGE_BROKEN`;
 * 5. `parentRecordHash` = previous `recordHash` (genesis for seq 0) → `LINEAGE_BROKEN`;
 * 6. `generationEpoch` not below the previous one (fencing), `residualId` not sealed twice → `SEQUENCE_REPLAYED`;
 * 7. `supersedes` names an earlier seq, with the hash held there when walked → `LINEAGE_BROKEN`;
 * 7′. writers (docs/authorship.md, "Offline checks"): no format change inside a lineage, and each
 *    format-2 record admitted by the policy in force before it (inception matching the lineage id),
 *    its `policyDigest` that policy unless it sets one → `LINEAGE_BROKEN` ("writer not admitted");
 *    a suffix walk (`trustedStart`) checks admission from the first policy it walks; each
 *    record that verifies carries `writtenBy` (its signed writer and how it was admitted);
 * 8. at `checkpoint.seq`, `recordHash` = `checkpoint.recordHash` (else a fork/rewrite) → `LINEAGE_BROKEN`;
 * 9. `anchor.keyId` = `header.keyId` → `HASH_MISMATCH`; `header.keyId` = the verifier's key → else
 *    `UNVERIFIED_TAMPER_RISK` (the walk goes on: the record's links are sound, only its MAC cannot be checked).
 * The walk stops at a definite failure or an unknown format version. When it reaches the end, a
 * chain (or an empty one) ending before `checkpoint.seq` → `TRUNCATION_DETECTED`.
 *
 * Phase 2: `anchor.verifyMac` for every record that passed phase 1, over its header bytes or,
 * for a batch-MAC'd record, the batch message its place folds to (`verifyRecordMac`): `false` or a
 * malformed place → `HASH_MISMATCH` (tampered or forged), rejected or no boolean →
 * `UNVERIFIED_TAMPER_RISK` (docs/sealing.md check 15′: fail closed).
 *
 * Precedence: a definite tamper finding (`HASH_MISMATCH`, `LINEAGE_BROKEN`, `SEQUENCE_REPLAYED`,
 * `TRUNCATION_DETECTED`) anywhere wins over `UNVERIFIED_TAMPER_RISK` in `verdict` and
 * `firstFailure` (the earliest definite one by position); without one, the earliest
 * `UNVERIFIED_TAMPER_RISK` is reported. So a MAC that cannot be checked never hides a break.
 * Per record: before the first definite failure each record carries its own finding
 * (`UNVERIFIED_TAMPER_RISK` when its MAC could not be checked) or `VERIFIED_INTACT`; the failing
 * record carries its verdict; records after it, or after a record the walk could not read, are
 * `UNVERIFIED_TAMPER_RISK` ("not verified: follows the failure at …").
 *
 * With `trustedStart`, the records are a suffix starting at `afterSeq + 1`. A checkpoint at or
 * below `afterSeq` cannot be compared with the records: one at `afterSeq` must carry
 * `afterRecordHash` (else `LINEAGE_BROKEN`), one below is taken as already covered.
 *
 * @param records - stored records, untrusted, in the order read (seq ascending expected)
 * @param options - {@link VerifyChainOptions}
 * @returns a {@link ChainVerification}; never throws for bad records, only for bad options
 * @throws {InvalidInputError} when `records` is not an array or `options` is malformed
 */
export async function verifyChain(records: unknown[], options: VerifyChainOptions): Promise<ChainVerification> {
  const { lineageId, anchor, checkpoint, trustedStart, macConcurrency } = parseInput(
    VerifyChainOptionsSchema,
    options,
    'chain verification options',
  );
  if (!Array.isArray(records)) {
    throw new InvalidInputError('records', [{ path: '', message: 'expected an array of sealed records' }]);
  }
  if (checkpoint && 'lineageId' in checkpoint && checkpoint.lineageId !== lineageId) {
    const message = `checkpoint is a head of lineage ${checkpoint.lineageId}, not ${lineageId}`;
    throw new InvalidInputError('chain verification options', [{ path: 'checkpoint.lineageId', message }]);
  }
  const start: Link | null = trustedStart
    ? {
        seq: trustedStart.afterSeq,
        recordHash: trustedStart.afterRecordHash,
        generationEpoch: trustedStart.generationEpoch ?? 0,
      }
    : null;
  const walk = new Walk(records, lineageId, anchor.keyId, start, checkpoint);

  // Phase 1: every key-free check over the whole chain.
  let stop: Failure | null = walk.startConflict();
  const findings: Failure[] = [];
  const candidates: Candidate[] = [];
  for (let index = 0; stop === null && index < records.length; index++) {
    const outcome = walk.check(index);
    if ('unverifiable' in outcome) findings.push(outcome.unverifiable);
    else if ('verdict' in outcome) stop = outcome;
    else candidates.push(outcome);
  }
  const last = walk.last;
  const linkedThrough =
    stop === null && last
      ? { afterSeq: last.seq, afterRecordHash: last.recordHash, generationEpoch: last.generationEpoch }
      : null;
  if (stop === null && checkpoint && (last?.seq ?? -1) < checkpoint.seq) {
    const reason = `truncated: the chain ends ${last ? `at seq ${last.seq}` : 'before seq 0'} but a trusted checkpoint saw seq ${checkpoint.seq}`;
    stop = { index: records.length, seq: (last?.seq ?? -1) + 1, verdict: V.TRUNCATION_DETECTED, reason };
  }
  // Phase 2: the MACs of the records that passed phase 1.
  findings.push(...(await macFailures(candidates, anchor, macConcurrency ?? DEFAULT_MAC_CONCURRENCY)));
  if (stop) findings.push(stop);

  const earliest = (list: Failure[]): Failure | null =>
    list.reduce<Failure | null>((first, f) => (first === null || f.index < first.index ? f : first), null);
  const firstDefinite = earliest(findings.filter(isDefiniteFailure));
  const failure = firstDefinite ?? earliest(findings);
  // Records past the horizon were not (fully) checked: they follow the failure there.
  const horizon = earliest([firstDefinite, stop].filter((f): f is Failure => f !== null));
  const own = new Map(findings.map((f) => [f.index, f]));
  const described = Array.from(records, (raw, index) =>
    describe(raw, index, own.get(index), horizon, walk.attributions[index]),
  );

  const intactPrefix = described.findIndex((r) => r.verdict !== V.VERIFIED_INTACT);
  const lastIntact = intactPrefix === -1 ? records.length - 1 : intactPrefix - 1;
  const headRecord = candidates.find((c) => c.index === lastIntact)?.record;
  const head = headRecord
    ? { seq: headRecord.header.monotonicSequenceNumber, recordHash: headRecord.recordHash }
    : start && { seq: start.seq, recordHash: start.recordHash };
  return {
    verdict: failure?.verdict ?? V.VERIFIED_INTACT,
    records: described,
    firstFailure: failure && { seq: failure.seq, verdict: failure.verdict, reason: failure.reason },
    head,
    linkedThrough,
  };
}

function describe(
  raw: unknown,
  index: number,
  own: Failure | undefined,
  horizon: Failure | null,
  writtenBy: RecordAttribution | undefined,
): RecordVerification {
  const { seq, residualId } = peek(raw);
  if (horizon && index > horizon.index) {
    const at = horizon.seq === null ? `position ${horizon.index}` : `seq ${horizon.seq}`;
    return {
      seq,
      residualId,
      verdict: V.UNVERIFIED_TAMPER_RISK,
      reason: `not verified: follows the failure at ${at} (${horizon.verdict})`,
    };
  }
  if (own) return { seq, residualId, verdict: own.verdict, reason: own.reason };
  // Who wrote it is said only of a record that verified (docs/authorship.md, "Who wrote it").
  return {
    seq,
    residualId,
    verdict: V.VERIFIED_INTACT,
    reason: 'lineage and integrity verified',
    ...(writtenBy ? { writtenBy } : {}),
  };
}

/** Seq and residual id of a raw record when it carries usable ones. */
function peek(raw: unknown): { seq: number | null; residualId: string | null } {
  const header = (raw as { header?: Record<string, unknown> } | null)?.header;
  const seq = header?.monotonicSequenceNumber;
  const residualId = header?.residualId;
  return {
    seq: typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0 ? seq : null,
    residualId: typeof residualId === 'string' ? residualId : null,
  };
}

/** State of the walk over the records: the previous link and what was seen so far. */
class Walk {
  readonly #genesis: HexDigest;
  #previous: Link | null;
  /**
   * Record hash by seq, from `#base` (the trusted start, else 0): the walk links only seq =
   * previous + 1, so the seqs it holds are dense and an array serves where a map would hash.
   */
  readonly #hashes: HexDigest[] = [];
  readonly #base: number;
  readonly #seqByResidualId = new Map<string, number>();
  /** Format of the previous record walked, `null` before one (or at a trusted start). */
  #format: number | null = null;
  /** The lineage write policy in force after the previous record, when the walk knows it. */
  #policy: LineagePolicy | null = null;
  /** Whether {@link #policy} is known: from seq 0, or once a suffix walk meets a record that sets one. */
  #policyKnown: boolean;
  /** How the last record {@link #checkWriter} passed was admitted (`null`: not decided). */
  #admitted: AdmissionKind | null = null;
  /** Who wrote each record that passed the key-free checks, by index (shown only once it verifies). */
  readonly attributions: (RecordAttribution | undefined)[] = [];

  constructor(
    private readonly records: readonly unknown[],
    private readonly lineageId: string,
    private readonly keyId: string,
    private readonly start: Link | null,
    private readonly checkpoint: TrustedHead | undefined,
  ) {
    this.#genesis = genesisParentHash(lineageId);
    this.#previous = start;
    this.#base = start ? start.seq : 0;
    this.#policyKnown = start === null;
    if (start) this.#hashes.push(start.recordHash);
  }

  /** The trusted start and the checkpoint disagree about the same seq. */
  startConflict(): Failure | null {
    const { start, checkpoint } = this;
    if (!start || !checkpoint || checkpoint.seq !== start.seq || checkpoint.recordHash === start.recordHash)
      return null;
    const reason = `fork: the trusted start and the checkpoint name different records at seq ${start.seq}`;
    // index -1: no record is the culprit; every record is left unverified.
    return { index: -1, seq: start.seq, verdict: V.LINEAGE_BROKEN, reason };
  }

  /** The last record that passed the key-free checks (or the trusted start), or `null`. */
  get last(): Link | null {
    return this.#previous;
  }

  /**
   * Key-free checks of record `index` (everything but the MAC): a candidate for the MAC check, a
   * record sealed under another key (`unverifiable`; the walk goes on), or a failure that stops the walk.
   */
  check(index: number): Candidate | Failure | { unverifiable: Failure } {
    const raw = this.records[index];
    const integrity = checkRecordIntegrity(raw);
    if (!isIntact(integrity)) return failureAt(index, raw, integrity);
    const { record, message, recordHash } = integrity;
    const { header } = record;
    const finding =
      this.#checkSequence(header, index) ??
      this.#checkLinks(header) ??
      this.#checkSupersedes(header) ??
      this.#checkWriter(record) ??
      this.#checkCheckpoint(header.monotonicSequenceNumber, recordHash);
    if (finding) return failureAt(index, raw, finding);
    this.attributions[index] = recordAttribution(record, this.#admitted);
    this.#link(header, recordHash);
    this.#format = header.formatVersion;
    if (record.policy) {
      this.#policy = record.policy;
      this.#policyKnown = true;
    }
    if (header.keyId !== this.keyId) {
      const reason = `sealed under key ${header.keyId}; this verifier holds ${this.keyId}, so the anchor cannot be checked`;
      return { unverifiable: failureAt(index, raw, { verdict: V.UNVERIFIED_TAMPER_RISK, reason }) };
    }
    return { index, record, message };
  }

  /** Checks 3–4: the lineage, and the seq exactly the previous one + 1 (replayed, reordered or missing). */
  #checkSequence(header: RecordHeader, index: number): Finding | null {
    if (header.lineageId !== this.lineageId) {
      return finding(V.LINEAGE_BROKEN, `record belongs to lineage ${header.lineageId}, not ${this.lineageId}`);
    }
    const seq = header.monotonicSequenceNumber;
    const expected = this.#previous ? this.#previous.seq + 1 : 0;
    if (seq < expected) {
      return finding(V.SEQUENCE_REPLAYED, `seq ${seq} repeated or rolled back: expected seq ${expected}`);
    }
    if (seq > expected) {
      const later = this.records.findIndex((r, i) => i > index && peek(r).seq === expected);
      return later >= 0
        ? finding(
            V.SEQUENCE_REPLAYED,
            `out of order: seq ${seq} where seq ${expected} was expected (found at position ${later})`,
          )
        : finding(V.LINEAGE_BROKEN, `records missing: seq ${seq} where seq ${expected} was expected`);
    }
    return null;
  }

  /** Checks 5–6: the parent link, the fencing epoch, and a residual id sealed only once. */
  #checkLinks(header: RecordHeader): Finding | null {
    const previous = this.#previous;
    const parent = previous ? previous.recordHash : this.#genesis;
    if (header.parentRecordHash !== parent) {
      const what = previous ? `the recordHash of seq ${previous.seq}` : 'the genesis value of the lineage';
      return finding(V.LINEAGE_BROKEN, `parentRecordHash is not ${what}`);
    }
    if (previous && header.generationEpoch < previous.generationEpoch) {
      return finding(
        V.SEQUENCE_REPLAYED,
        `generation epoch went back from ${previous.generationEpoch} to ${header.generationEpoch} (fenced-out writer)`,
      );
    }
    const earlier = this.#seqByResidualId.get(header.residualId);
    if (earlier !== undefined) {
      return finding(V.SEQUENCE_REPLAYED, `residualId ${header.residualId} was already sealed at seq ${earlier}`);
    }
    return null;
  }

  /** Check 7: `supersedes` names an earlier seq, with the hash held there when walked. */
  #checkSupersedes(header: RecordHeader): Finding | null {
    const { supersedes } = header;
    if (!supersedes) return null;
    const seq = header.monotonicSequenceNumber;
    if (supersedes.seq >= seq) {
      return finding(V.LINEAGE_BROKEN, `supersedes seq ${supersedes.seq}, which is not earlier than ${seq}`);
    }
    const held = supersedes.seq >= this.#base ? this.#hashes[supersedes.seq - this.#base] : undefined;
    if (held !== undefined && held !== supersedes.recordHash) {
      return finding(V.LINEAGE_BROKEN, `supersedes seq ${supersedes.seq} with a hash that is not that record's`);
    }
    return null;
  }

  /**
   * Check 7′ (docs/authorship.md, "Offline checks"): one format per lineage, and a format-2
   * record admitted by the policy in force before it, naming the policy in force after it.
   */
  #checkWriter(record: SealedRecord): Finding | null {
    const { header } = record;
    const bound = header.formatVersion === RECORD_FORMAT_WRITER_BOUND;
    this.#admitted = null;
    if (this.#format !== null && this.#format !== header.formatVersion) {
      return finding(
        V.LINEAGE_BROKEN,
        bound
          ? 'writer not admitted: a legacy (format-1) lineage is never extended'
          : 'a format-1 record after a format-2 record (a writer-bound lineage stays writer-bound)',
      );
    }
    if (!bound || !record.writer || !this.#policyKnown) return null;
    const seq = header.monotonicSequenceNumber;
    const policy = record.policy ?? null;
    const admission = admitWrite(
      { lineageId: this.lineageId, seq, inForce: this.#policy, legacyTip: false },
      { publicKey: record.writer.publicKey, policy },
    );
    if ('refused' in admission) return finding(V.LINEAGE_BROKEN, `writer not admitted: ${admission.refused}`);
    if (policy === null && this.#policy && header.policyDigest !== policyDigest(this.#policy)) {
      return finding(V.LINEAGE_BROKEN, 'policyDigest is not the digest of the lineage write policy in force');
    }
    this.#admitted = admission.admitted;
    return null;
  }

  /** Check 8: at the checkpoint's seq, the checkpoint's record hash (else a fork). */
  #checkCheckpoint(seq: number, recordHash: HexDigest): Finding | null {
    if (this.checkpoint?.seq !== seq || this.checkpoint.recordHash === recordHash) return null;
    return finding(V.LINEAGE_BROKEN, `fork: seq ${seq} differs from the trusted checkpoint (history rewritten)`);
  }

  /** The record passed the key-free checks: it is the link the next record must continue. */
  #link(header: RecordHeader, recordHash: HexDigest): void {
    const seq = header.monotonicSequenceNumber;
    this.#previous = { seq, recordHash, generationEpoch: header.generationEpoch };
    this.#hashes[seq - this.#base] = recordHash;
    this.#seqByResidualId.set(header.residualId, seq);
  }
}

/** A verdict with its reason, before it is placed at a record. */
interface Finding {
  readonly verdict: VerificationVerdict;
  readonly reason: string;
}

const finding = (verdict: VerificationVerdict, reason: string): Finding => ({ verdict, reason });

/** A finding placed at record `index` (its seq read from the raw record when usable). */
const failureAt = (index: number, raw: unknown, { verdict, reason }: Finding): Failure => ({
  index,
  seq: peek(raw).seq,
  verdict,
  reason,
});
