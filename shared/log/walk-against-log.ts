import { LogStateError } from '../errors';
import { FreshnessState } from '../integrator/record-freshness';
import type { LineageStore } from '../ports/lineage-store';
import type { ChainVerification } from '../seal/chain-verification';
import { VerificationVerdict } from '../seal/verification-verdict';
import { checkpointOrigin } from './checkpoint-origin';
import { EMPTY_ROOT } from './empty-root';
import { hashesEqual } from './hashes-equal';
import type { LineageLogView, SignedLogView } from './lineage-log-view';
import { authenticateLogState } from './log-state';
import { proveStoredRecord } from './stored-log';
import type { WalkPlan } from './walk-plan';
import type { WalkedRecords } from './walked-records';
import type { WalkedTree } from './walked-tree';

/** Where a walk tied to the index stands against the tree head the index holds (docs/deployment-log.md, "Clients"). */
export interface IndexedWalk {
  /**
   * `PROVEN`: the index holds exactly the walked records; `SEALED_AWAITING_INTEGRATION`: records
   * are sealed past its tree head; `NOT_NEWEST`: the table shows fewer records than it holds;
   * `INCONSISTENT`: the walked records are another history; `REFUSED`: the chain does not verify.
   */
  readonly state: FreshnessState;
  readonly reason: string;
  /** Size of the deployment checkpoint the tree head was read under (`null`: none published, or refused). */
  readonly deploymentCheckpointSize: number | null;
  /** The first seq sealed past the indexed tree head (awaiting integration), or `null`. */
  readonly awaitingFromSeq: number | null;
}

/** What {@link checkWalkAgainstLog} found: the verification, and what the log showed (`null`: nothing to compare). */
export interface WalkAgainstLog {
  readonly verification: ChainVerification;
  /**
   * The tree head the walk was tied to: its size and root, whether it was checked against a kept
   * checkpoint, and what vouches for it (the head item's signed lineage checkpoint, or the index).
   */
  readonly log: {
    readonly size: number;
    readonly rootHash: Uint8Array;
    readonly truncationChecked: boolean;
    readonly vouchedBy: 'signed-checkpoint' | 'index';
    /** The signed lineage checkpoint (C2SP signed note) of exactly this tree, or `null` (vouched by the index). */
    readonly note: string | null;
  } | null;
  /** A walk tied to the index: where it stands against it; `null` for a walk tied to a signed checkpoint. */
  readonly indexed: IndexedWalk | null;
}

/**
 * Ties a walked lineage to its log (docs/verifiable-log.md, "Verifying a whole lineage"), as its
 * plan says:
 *
 * - **signed checkpoint** (a head item that carries one): the latest checkpoint verified and
 *   consistent with the kept one (then kept), covering exactly the walked records, with the walk's
 *   last record proven as its last leaf; the head item's log state must authenticate as the sealer
 *   authenticates it. The caller then places it against the index (it never outranks the index).
 * - **index** (a head item without one): the tree head the index holds, read before the walk. The
 *   walked records' RFC 9162 root at its size must be its root, so every integrated record is the
 *   leaf the index committed to at its seq (and a kept checkpoint's root at its size). A table
 *   showing fewer records than the index holds is `NOT_NEWEST` (`UNVERIFIED_TAMPER_RISK`), fewer
 *   than the kept checkpoint `TRUNCATION_DETECTED`; a chain that does not verify, or a reader with
 *   no deployment log, proves nothing (`UNVERIFIED_TAMPER_RISK`). Records past the indexed size
 *   are **sealed, awaiting integration**: not `VERIFIED_INTACT` (their verdict is
 *   `UNVERIFIED_TAMPER_RISK` with that reason, and `indexed.state` says it), not tampering.
 *
 * Since every record hash commits to its parent, either binds the whole walked chain to the tree.
 *
 * @returns the verification (its verdict and first failure updated when the log disagrees) and
 *   what the log showed, or `log: null` when there is nothing to compare
 */
export async function checkWalkAgainstLog(
  log: LineageLogView,
  store: Pick<LineageStore, 'logHead' | 'readNodes' | 'readRecord'>,
  lineageId: string,
  verification: ChainVerification,
  walked: WalkedRecords,
): Promise<WalkAgainstLog> {
  if (walked.plan.by === 'index') return checkWalkAgainstIndex(verification, walked.plan, walked.tree);
  return checkWalkAgainstSignedCheckpoint(log, store, lineageId, verification);
}

const failedWith = (
  verification: ChainVerification,
  verdict: VerificationVerdict,
  reason: string,
  seq: number | null,
  indexed: IndexedWalk | null = null,
): WalkAgainstLog => ({
  verification: { ...verification, verdict, firstFailure: { seq, verdict, reason: `log: ${reason}` } },
  log: null,
  indexed,
});

async function checkWalkAgainstSignedCheckpoint(
  log: SignedLogView,
  store: Pick<LineageStore, 'logHead' | 'readNodes' | 'readRecord'>,
  lineageId: string,
  verification: ChainVerification,
): Promise<WalkAgainstLog> {
  if (verification.verdict !== VerificationVerdict.VERIFIED_INTACT) return { verification, log: null, indexed: null };
  const failed = (verdict: VerificationVerdict, reason: string, seq: number | null = null) =>
    failedWith(verification, verdict, reason, seq);
  const latest = await log.latestKept(lineageId);
  if (latest.kind === 'FINDING') return failed(latest.verdict, latest.reason);
  if (latest.kind === 'NONE') return { verification, log: null, indexed: null };
  const head = verification.head;
  const size = latest.checkpoint.size;
  if (!head || head.seq + 1 !== size) {
    return failed(
      VerificationVerdict.LINEAGE_BROKEN,
      `the walk ends ${head ? `at seq ${head.seq}` : 'before seq 0'} but the signed checkpoint covers ${size} records`,
    );
  }
  const proven = await proveStoredRecord(store, lineageId, head.seq, latest.checkpoint);
  if (proven.kind === 'MISSING') {
    return failed(VerificationVerdict.LINEAGE_BROKEN, `record ${head.seq} is missing`, head.seq);
  }
  if (proven.kind === 'FINDING') return failed(proven.verdict, proven.reason, head.seq);
  if (proven.record.recordHash !== head.recordHash) {
    return failed(VerificationVerdict.HASH_MISMATCH, `seq ${head.seq} is not the signed tree's last leaf`, head.seq);
  }
  // The head item's log state (frontier, header) as the sealer will authenticate it before the
  // next append: a state that does not authenticate refuses every write until it is repaired.
  try {
    const key = await log.key();
    authenticateLogState(await store.logHead(lineageId), {
      lineageId,
      origin: checkpointOrigin(key.name, lineageId),
      key,
    });
  } catch (error) {
    if (error instanceof LogStateError) return failed(VerificationVerdict.LINEAGE_BROKEN, error.message, head.seq);
    throw error;
  }
  return {
    verification,
    log: {
      size,
      rootHash: latest.checkpoint.rootHash,
      truncationChecked: latest.truncationChecked,
      vouchedBy: 'signed-checkpoint',
      note: latest.checkpoint.note,
    },
    indexed: null,
  };
}

/**
 * The walk against the index ({@link checkWalkAgainstLog}); a walk that would pass (intact, or
 * sealed awaiting integration) under a head item that is not a well-formed state is
 * `LINEAGE_BROKEN` instead, as recall and the sealer refuse that head. A walk that found something
 * else keeps its own finding.
 */
function checkWalkAgainstIndex(
  walkedVerification: ChainVerification,
  plan: Extract<WalkPlan, { by: 'index' }>,
  tree: WalkedTree,
): WalkAgainstLog {
  const walked = checkWalkAgainstIndexEntry(walkedVerification, plan, tree);
  const passes =
    walked.verification.verdict === VerificationVerdict.VERIFIED_INTACT ||
    walked.indexed?.state === FreshnessState.SEALED_AWAITING_INTEGRATION;
  if (plan.malformedHead === null || !passes) return walked;
  return failedWith(
    walkedVerification,
    VerificationVerdict.LINEAGE_BROKEN,
    plan.malformedHead,
    plan.storedHead?.seq ?? null,
  );
}

function checkWalkAgainstIndexEntry(
  walkedVerification: ChainVerification,
  plan: Extract<WalkPlan, { by: 'index' }>,
  tree: WalkedTree,
): WalkAgainstLog {
  const V = VerificationVerdict;
  const verification = withRecordsPastStoredHead(walkedVerification, plan, tree);
  if (verification.verdict !== V.VERIFIED_INTACT) return { verification, log: null, indexed: null };
  const { treeHead, kept } = plan;
  const walkedSize = verification.head ? verification.head.seq + 1 : 0;
  const ends = walkedSize === 0 ? 'before seq 0' : `at seq ${walkedSize - 1}`;
  if (treeHead.kind === 'UNAVAILABLE') {
    return failedWith(
      verification,
      V.UNVERIFIED_TAMPER_RISK,
      `the head item carries no signed lineage checkpoint and ${treeHead.reason}: no tree head to tie the walk to`,
      null,
    );
  }
  if (treeHead.kind === 'REFUSED') {
    const state = treeHead.verdict === V.UNVERIFIED_TAMPER_RISK ? FreshnessState.REFUSED : FreshnessState.INCONSISTENT;
    return failedWith(verification, treeHead.verdict, treeHead.reason, null, {
      state,
      reason: treeHead.reason,
      deploymentCheckpointSize: null,
      awaitingFromSeq: null,
    });
  }
  // Nothing vouches for any tree yet (not indexed, none published): the empty tree, every record awaiting.
  const indexed =
    treeHead.kind === 'VOUCHED'
      ? {
          size: treeHead.head.size,
          rootHash: treeHead.head.rootHash,
          deploymentCheckpointSize: treeHead.head.deploymentCheckpointSize,
          vouchedBy: treeHead.head.vouchedBy === 'INDEX' ? ('index' as const) : ('signed-checkpoint' as const),
        }
      : { size: 0, rootHash: EMPTY_ROOT, deploymentCheckpointSize: null, vouchedBy: 'index' as const };
  const at =
    treeHead.kind === 'UNVOUCHED'
      ? 'the lineage not indexed yet'
      : indexed.deploymentCheckpointSize === null
        ? 'no deployment checkpoint published'
        : `deployment checkpoint ${indexed.deploymentCheckpointSize}`;
  const place = (state: FreshnessState, reason: string, awaitingFromSeq: number | null = null): IndexedWalk => ({
    state,
    reason,
    deploymentCheckpointSize: indexed.deploymentCheckpointSize,
    awaitingFromSeq,
  });
  if (kept.kind === 'FINDING') return failedWith(verification, kept.verdict, kept.reason, null);
  if (kept.kind === 'KEPT') {
    const keptSize = kept.checkpoint.size;
    if (keptSize > walkedSize) {
      return failedWith(
        verification,
        V.TRUNCATION_DETECTED,
        `truncated: the walk ends ${ends} but the kept checkpoint covers ${keptSize} records`,
        walkedSize,
      );
    }
    const prefix = tree.prefix(keptSize);
    if (!prefix || !hashesEqual(prefix.rootHash, kept.checkpoint.rootHash)) {
      return failedWith(
        verification,
        V.LINEAGE_BROKEN,
        `the walked records are another history than the kept checkpoint (${keptSize} records): its root differs`,
        null,
      );
    }
  }
  if (indexed.size > walkedSize) {
    const reason = `NOT_NEWEST: the walk ends ${ends} but the index holds ${indexed.size} records of the lineage as of ${at} (a rollback, or records hidden)`;
    return failedWith(
      verification,
      V.UNVERIFIED_TAMPER_RISK,
      reason,
      walkedSize,
      place(FreshnessState.NOT_NEWEST, reason),
    );
  }
  const prefix = tree.prefix(indexed.size);
  if (!prefix || !hashesEqual(prefix.rootHash, indexed.rootHash)) {
    const reason = `the walked records are not the leaves of the tree head the index holds (${indexed.size} records, ${at}): its root differs`;
    return failedWith(verification, V.HASH_MISMATCH, reason, null, place(FreshnessState.INCONSISTENT, reason));
  }
  const log = {
    size: indexed.size,
    rootHash: indexed.rootHash,
    truncationChecked: kept.kind === 'KEPT',
    vouchedBy: indexed.vouchedBy,
    note: treeHead.kind === 'VOUCHED' ? treeHead.head.note : null,
  };
  if (indexed.size === walkedSize) {
    return {
      verification,
      log,
      indexed: place(FreshnessState.PROVEN, `the index holds the ${walkedSize} walked records as of ${at}`),
    };
  }
  const reason = `sealed, awaiting integration: past the tree head the index holds (${indexed.size} records, ${at}); verify again after the next integration`;
  return {
    verification: awaitingPast(verification, indexed.size, prefix.lastRecordHash, reason),
    log,
    indexed: place(FreshnessState.SEALED_AWAITING_INTEGRATION, reason, indexed.size),
  };
}

/**
 * `verification` with every record from seq `size` on awaiting integration: not `VERIFIED_INTACT`
 * (`UNVERIFIED_TAMPER_RISK` with `reason`, no writer), the first of them the first failure, and
 * the head the last integrated record (`null` when none is).
 */
function awaitingPast(
  verification: ChainVerification,
  size: number,
  lastIntegratedHash: string | null,
  reason: string,
): ChainVerification {
  const verdict = VerificationVerdict.UNVERIFIED_TAMPER_RISK;
  return {
    ...verification,
    verdict,
    records: verification.records.map(({ writtenBy, ...record }) =>
      record.seq !== null && record.seq >= size && record.verdict === VerificationVerdict.VERIFIED_INTACT
        ? { ...record, verdict, reason }
        : { ...record, ...(writtenBy ? { writtenBy } : {}) },
    ),
    firstFailure: { seq: size, verdict, reason },
    head: size > 0 && lastIntegratedHash ? { seq: size - 1, recordHash: lastIntegratedHash } : null,
  };
}

/**
 * `verification` without the stored-head finding a walk folded in for records stored past the
 * head item, or stored without one (`checkStoredHead`, shared/seal/stored-head.ts), where the
 * append's layout makes them a write in flight, not tampering (docs/sealing.md, "The append's
 * layout", "What each reader changes"): the records past a stored head at or past the indexed
 * head, when every walked record passed the key-free checks from seq 0 on (so they chain from the
 * head record, whose hash is the head item's), or records with no head item in a lineage the index
 * does not hold. The caller then reads them as sealed, awaiting integration, like any record past
 * the indexed tree head. Records with no head item where the reader kept a checkpoint of the
 * lineage are `TRUNCATION_DETECTED` (the head that checkpoint saw was deleted; never a first
 * append in flight), whatever the index holds. Anything else is returned as it is: records past a
 * head behind the index, or with no head item in a lineage the index holds, stay
 * `LINEAGE_BROKEN`; records that do not chain keep their own findings.
 */
function withRecordsPastStoredHead(
  verification: ChainVerification,
  plan: Extract<WalkPlan, { by: 'index' }>,
  tree: WalkedTree,
): ChainVerification {
  const V = VerificationVerdict;
  const { firstFailure, records } = verification;
  if (verification.verdict !== V.LINEAGE_BROKEN || firstFailure === null) return verification;
  const pending = (verdict: VerificationVerdict) =>
    verdict === V.VERIFIED_INTACT || verdict === V.UNVERIFIED_TAMPER_RISK;
  // Every record walked from seq 0, none with a finding of its own: the break is the stored head's alone.
  if (!records.every((record, seq) => record.seq === seq && pending(record.verdict))) return verification;
  const { storedHead, kept } = plan;
  // A head the kept checkpoint saw is never taken back by the sealer: records without it are a cut.
  if (storedHead === null && kept.kind === 'KEPT' && kept.checkpoint.size > 0) {
    const reason = `log: truncated: records up to seq ${records.length - 1} are stored without a head item, but the kept checkpoint saw its head (${kept.checkpoint.size} records): head deleted`;
    return {
      ...verification,
      verdict: V.TRUNCATION_DETECTED,
      firstFailure: { seq: firstFailure.seq, verdict: V.TRUNCATION_DETECTED, reason },
    };
  }
  // Only the index tells a write in flight from tampering: a reader it did not answer keeps the finding.
  if (plan.treeHead.kind !== 'VOUCHED' && plan.treeHead.kind !== 'UNVOUCHED') return verification;
  const indexedSize = plan.treeHead.kind === 'VOUCHED' ? plan.treeHead.head.size : null;
  if (storedHead === null) {
    if (indexedSize !== null) return verification;
  } else {
    const size = storedHead.seq + 1;
    const pastHead = firstFailure.seq === size && records.length > size;
    if (!pastHead || tree.prefix(size)?.lastRecordHash !== storedHead.recordHash) return verification;
    if (indexedSize !== null && indexedSize > size) return verification;
  }
  const unverified = records.find((record) => record.verdict !== V.VERIFIED_INTACT);
  return {
    ...verification,
    verdict: unverified ? unverified.verdict : V.VERIFIED_INTACT,
    firstFailure: unverified ? { seq: unverified.seq, verdict: unverified.verdict, reason: unverified.reason } : null,
  };
}
