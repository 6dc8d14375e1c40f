import { boundaryDigest } from '../authorship/boundary-digest';
import { policyDigest } from '../authorship/lineage-policy';
import { writerDigest } from '../authorship/writer-digest';
import { FORMAT_VERSION } from '../canonical/hash-domain';
import { InvalidInputError, StaleEpochError } from '../errors';
import type { MacAnchor } from '../ports/mac-anchor';
import { EpochMillis } from '../schemas/epoch-millis';
import { IDENTIFIER_PATTERN } from '../schemas/identifier';
import { isHexDigest } from '../schemas/is-hex-digest';
import { isNonNegativeInt } from '../schemas/is-non-negative-int';
import { isPlainRecord } from '../schemas/is-plain-record';
import { parseInput } from '../schemas/parse';
import { type ChainTip, ChainTipSchema } from './chain-tip';
import { genesisParentHash } from './genesis-parent-hash';
import { macRecords, type RecordMac } from './mac-records';
import { encodeHeaderWithHash, RECORD_FORMAT_WRITER_BOUND, type RecordHeader } from './record-header';
import { parseSealInput, type SealInput, type ValidatedSealInput } from './seal-input';
import type { SealedRecord } from './sealed-record';
import { variablesDigest } from './variables-digest';

/**
 * Seals a residual as the next record of its lineage (docs/sealing.md, "Sealing").
 *
 * - `monotonicSequenceNumber` = `head.seq + 1`, or 0 without a head;
 * - `parentRecordHash` = `head.recordHash`, or {@link genesisParentHash} without a head;
 * - `payloadHash`, `manifestDigest` and `variablesDigest` computed here from the bodies;
 * - `sealedAtMs` = `max(nowMs, head.sealedAtMs)` (the parent's, when the tip carries it), in the
 *   header and on the record: seal times never fall along a chain, so a search by seal time (the
 *   sealer's replay window, `REPLAY_SEARCH_MARGIN_MS`, `recordsSince`) may stop at the first record
 *   older than its bound even when a sealer's clock runs behind the one that sealed the parent;
 * - `keyId` = `anchor.keyId`; the MAC is `anchor.generateMac(headerBytes(header))` (the single
 *   form; the sealer MACs an invocation's records together: {@link recordOnTip}, `macRecords`).
 *
 * Pure apart from the anchor call: the caller persists the record with a conditional write on
 * the head (two seals from the same head yield two records with the same seq; the store must
 * let only one win and the chain verifier rejects a chain holding both).
 *
 * @param input - a {@link SealInput}
 * @param head - the chain tip to extend (a verified {@link LineageHead}, or an authenticated log tip), or `null` for a new lineage
 * @param anchor - the MAC anchor (KMS in production, {@link LocalHmacAnchor} in tests)
 * @param nowMs - clock, ms since the Unix epoch, stored as `sealedAtMs` unless the parent's is later
 * @throws {InvalidInputError} for a malformed input or head, a head of another lineage, a
 *   `supersedes` that names a record the head cannot have, or a sequence past 2^53 − 1
 * @throws {StaleEpochError} when `input.generationEpoch` is older than `head.generationEpoch` (fencing token)
 * @throws {HeaderTooLargeError} when the canonical header exceeds 4,096 bytes
 * @throws {AnchorKeyMismatchError} when the anchor signs under a key other than `anchor.keyId`
 * @throws whatever `anchor.generateMac` throws (key disabled, unreachable)
 */
export async function sealRecord(
  input: SealInput,
  head: ChainTip | null,
  anchor: MacAnchor,
  nowMs: number,
): Promise<SealedRecord> {
  return sealValidated(parseSealInput(input), head, anchor, nowMs);
}

/**
 * {@link sealRecord} of an input already validated and digested ({@link parseSealInput} or
 * `sealInputOfWrite`): the head, the time and the header are checked; the bodies are neither
 * validated nor serialized again (their digests come with the input).
 *
 * @throws as {@link sealRecord}, except for a malformed input (it cannot be one)
 */
export async function sealValidated(
  validated: ValidatedSealInput,
  head: ChainTip | null,
  anchor: MacAnchor,
  nowMs: number,
): Promise<SealedRecord> {
  const { record, message } = recordOnTip(validated, head, anchor.keyId, nowMs);
  const [mac] = await macRecords([{ recordHash: record.recordHash, message }], anchor);
  return sealedRecordWithMac(record, mac as RecordMac);
}

/** A record sealed on its tip, everything but its MAC (`anchor`, and a batch MAC's `macBatch`). */
export type UnmacdRecord = Omit<SealedRecord, 'anchor' | 'macBatch'>;

/**
 * {@link sealValidated} without the MAC: the record on `head` and its header bytes, for a caller
 * that MACs several records with one `GenerateMac` (`macRecords`, the sealer's record batch;
 * docs/sealing.md, "The record and its seal"). Pure.
 *
 * @param keyId - the MAC key the header names (the anchor's `keyId`)
 * @throws as {@link sealValidated}, except what the anchor throws
 */
export function recordOnTip(
  validated: ValidatedSealInput,
  head: ChainTip | null,
  keyId: string,
  nowMs: number,
): { readonly record: UnmacdRecord; readonly message: Uint8Array } {
  const request = validated.input;
  const current =
    head === null || isChainTip(head) ? head : parseInput(ChainTipSchema.nullable(), head, 'lineage head');
  const clock = isNonNegativeInt(nowMs) ? nowMs : parseInput(EpochMillis, nowMs, 'seal time');
  checkAgainstHead(request, current);
  // Never before the parent: a clock behind the parent's sealer would make seal times fall along the chain.
  const sealedAtMs = Math.max(clock, current?.sealedAtMs ?? 0);

  const seq = current ? current.seq + 1 : 0;
  const bound = writerBoundFields(request, current);
  const header: RecordHeader = {
    formatVersion: bound ? RECORD_FORMAT_WRITER_BOUND : FORMAT_VERSION,
    lineageId: request.lineageId,
    monotonicSequenceNumber: seq,
    residualId: request.residualId,
    sessionId: request.sessionId,
    payloadHash: validated.payloadHash,
    parentRecordHash: current ? current.recordHash : genesisParentHash(request.lineageId),
    generationEpoch: request.generationEpoch,
    authority: request.authority,
    manifestDigest: validated.manifestDigest,
    verdictDigest: request.verdictDigest,
    variablesDigest: variablesDigest(request.variablesUsed),
    sealedAtMs,
    keyId,
    supersedes: request.supersedes ?? null,
    ...(bound ?? {}),
  };
  const { message, recordHash } = encodeHeaderWithHash(header);
  const record = {
    header,
    recordHash,
    payload: request.payload,
    manifest: request.manifest,
    variablesUsed: request.variablesUsed,
    sealedAtMs,
    ...(request.writer
      ? {
          writer: request.writer,
          boundary: request.boundary,
          declaredImmutableConstants: request.declaredImmutableConstants,
          policy: request.policy ?? null,
        }
      : {}),
  } as UnmacdRecord;
  return { record, message };
}

/** `record` with its seal: the MAC and, for a batch MAC, the record's place. */
export function sealedRecordWithMac(record: UnmacdRecord, mac: RecordMac): SealedRecord {
  return {
    ...record,
    anchor: mac.anchor,
    ...(mac.macBatch === undefined ? {} : { macBatch: mac.macBatch }),
  } as SealedRecord;
}

/**
 * The format-2 header fields of a writer-bound input (docs/authorship.md, "Record format 2"), or
 * `null` for a format-1 input. The policy in force after the record is the one it sets, else the
 * tip's.
 *
 * @throws {InvalidInputError} for a writer-bound input with no policy in force (a new lineage
 *   must set one; a format-1 tip has none)
 */
function writerBoundFields(
  request: ValidatedSealInput['input'],
  tip: ChainTip | null,
): Pick<RecordHeader, 'writerDigest' | 'boundaryDigest' | 'policyDigest'> | null {
  const { writer, boundary, declaredImmutableConstants } = request;
  if (!writer || !boundary || !declaredImmutableConstants) return null;
  const inForce = request.policy ? policyDigest(request.policy) : (tip?.policyDigest ?? null);
  if (inForce === null) {
    throw new InvalidInputError('seal input', [
      { path: 'policy', message: 'a writer-bound record needs a lineage write policy in force (set one at inception)' },
    ]);
  }
  return {
    writerDigest: writerDigest(writer),
    boundaryDigest: boundaryDigest(boundary, declaredImmutableConstants),
    policyDigest: inForce,
  };
}

/** Whether `ChainTipSchema` (not strict: other fields ignored) accepts `head`; checked by hand, it is on every seal. */
function isChainTip(head: unknown): head is ChainTip {
  return (
    isPlainRecord(head) &&
    typeof head.lineageId === 'string' &&
    IDENTIFIER_PATTERN.test(head.lineageId) &&
    isNonNegativeInt(head.seq) &&
    isHexDigest(head.recordHash) &&
    isNonNegativeInt(head.generationEpoch) &&
    (head.policyDigest === undefined || head.policyDigest === null || isHexDigest(head.policyDigest)) &&
    (head.sealedAtMs === undefined || isNonNegativeInt(head.sealedAtMs))
  );
}

function checkAgainstHead(request: ValidatedSealInput['input'], head: ChainTip | null): void {
  const problem = (path: string, message: string) => new InvalidInputError('seal input', [{ path, message }]);
  if (head === null) {
    if (request.supersedes) throw problem('supersedes', 'a new lineage has no record to supersede');
    return;
  }
  if (head.lineageId !== request.lineageId) {
    throw problem('lineageId', `head belongs to lineage ${head.lineageId}, not ${request.lineageId}`);
  }
  if (request.generationEpoch < head.generationEpoch) {
    throw new StaleEpochError(request.lineageId, head.generationEpoch, request.generationEpoch);
  }
  if (head.seq >= Number.MAX_SAFE_INTEGER) throw problem('', 'lineage sequence is exhausted (2^53 − 1)');
  const { supersedes } = request;
  if (supersedes && supersedes.seq > head.seq) {
    throw problem('supersedes.seq', `seq ${supersedes.seq} is past the head (seq ${head.seq})`);
  }
  if (supersedes && supersedes.seq === head.seq && supersedes.recordHash !== head.recordHash) {
    throw problem('supersedes.recordHash', `does not match the head's record hash at seq ${head.seq}`);
  }
}
