import { IndexNodeMissingError, InvalidInputError } from '../errors';
import { applyIndexUpdates } from '../index/apply-index-updates';
import { entryKey, type LineageIndexValue, type ResidualIndexValue } from '../index/index-entry';
import { admitUpdate, type IndexUpdate, updateEntry } from '../index/index-update';
import { proveIndexKey } from '../index/prove-index-key';
import type { Checkpoint } from '../log/checkpoint';
import { leafHash } from '../log/merkle-hash';
import { verifyConsistency } from '../log/verify-consistency';
import { verifyInclusion } from '../log/verify-inclusion';
import type { IndexNodeStore } from '../ports/index-node-store';
import { appendIndexRoot, type DeploymentAppend } from './deployment-append';
import { type DeploymentLogState, deploymentCheckpoint } from './deployment-log-state';
import { checkFrontierExtension } from './frontier-extension';
import type { IntegrationEvidence } from './integration-evidence';
import { missingNodeEvidence } from './missing-node-evidence';
import type { SealedRunNotice } from './sealed-run-notice';
import { StagedIndexNodeStore } from './staged-index-node-store';

/** A record between the indexed head and the stored one, as the integrator read it from the lineage's table. */
export interface CandidateRecord {
  readonly seq: number;
  /** The residual id its header seals (the caller recomputed the record hash from that header). */
  readonly residualId: string;
  /** The record hash, 64 lowercase hex. */
  readonly recordHash: string;
  /**
   * RFC 9162 inclusion proof (hex) of its leaf at `seq` in the candidate head's tree, built from
   * the table's nodes; empty (and not read) when the candidate's `extendedFrom` proves it.
   */
  readonly inclusion: readonly string[];
}

/**
 * What the integrator read for one lineage (docs/deployment-log.md, "Integration", step 2):
 * either the stored head, authenticated, with the proofs built from the lineage's own tree, or
 * why it could not be read.
 */
export type LineageCandidate =
  | {
      readonly lineageId: string;
      /** The authenticated stored head, as an index value. */
      readonly head: LineageIndexValue;
      /**
       * RFC 9162 consistency proof (hex) from the head the index holds (its `treeSize`) to `head`,
       * built from the table's nodes; empty when the index holds none or the sizes are equal.
       */
      readonly consistency: readonly string[];
      /** Every record from the indexed size (0 when none) to `head.treeSize − 1`, in seq order. */
      readonly records: readonly CandidateRecord[];
      /**
       * RFC 9162 inclusion proofs (hex) in `head`'s tree, built from the table's nodes, by seq, of
       * the seqs below the indexed size that the batch's notices name (a late or redelivered
       * notice, docs/deployment-log.md, "Integration", step 3). A seq without one (a node the
       * table does not hold) leaves its notice unproven: `NOTICE_MISMATCH`, never dropped.
       */
      readonly noticedInclusion?: ReadonlyMap<number, readonly string[]>;
      /**
       * The indexed tree's compact range (hex, left to right; `[]` when the index holds no head),
       * offered instead of `consistency` and the records' `inclusion` (docs/deployment-log.md,
       * "Integration", "A warm integrator"): `integrate` appends the records' leaves to it and
       * requires the indexed root before and the stored head's root after
       * (`checkFrontierExtension`). Absent: the proofs are checked, as built from the table.
       */
      readonly extendedFrom?: readonly string[];
    }
  | { readonly lineageId: string; readonly unreadable: string };

/** Input of {@link integrate}. */
export interface IntegrationInput {
  /** Where the index keeps its nodes; only the kept try's nodes are written, in one call. */
  readonly store: IndexNodeStore;
  /** The deployment log as last committed (authenticated by the caller). */
  readonly previous: DeploymentLogState;
  /** The deployment log's origin, `reseal/<stackName>`. */
  readonly origin: string;
  /** One per lineage. */
  readonly candidates: readonly LineageCandidate[];
  /** The batch's sealed-run notices, cross-checked against the candidates. */
  readonly notices: readonly SealedRunNotice[];
  /** The lineage entries the index holds (from `readHeldLineages`). */
  readonly held: ReadonlyMap<string, LineageIndexValue | null>;
}

/** What {@link integrate} decided. */
export interface IntegrationResult {
  /** Lineages whose head or residual ids entered the index in this integration. */
  readonly integrated: readonly string[];
  /** Lineages the index already held exactly so. */
  readonly unchanged: readonly string[];
  /** Lineages left out, with why (none of their updates applied). */
  readonly evidence: readonly IntegrationEvidence[];
  /** The index root after the integration (the previous one when nothing changed). */
  readonly indexRoot: Uint8Array;
  /** The new leaf and state of the deployment log, or `null` when the index did not change. */
  readonly next: DeploymentAppend | null;
  /** The one checkpoint to sign for every lineage at once, or `null` when the index did not change. */
  readonly checkpoint: Checkpoint | null;
  /** Index tiles written (docs/verifiable-index.md, "Tiles"). */
  readonly tilesWritten: number;
}

/**
 * One integration (docs/deployment-log.md, "Integration"): decides, lineage by lineage, whether
 * its stored head enters the index, then folds every admitted lineage into one new index root and
 * the next deployment-log leaf: one checkpoint to sign for all of them. A lineage enters whole
 * (head and residual ids) or not at all:
 *
 * 1. its head authenticated (else `HEAD_UNAUTHENTICATED`), its consistency proof from the indexed
 *    head verified (else `HEAD_INCONSISTENT`), the update rule passed (`LINEAGE_ROLLBACK`,
 *    `LINEAGE_FORK`, …);
 * 2. every record since the indexed head present, in order, and proven in the new head
 *    (else `RECORD_UNPROVEN`), no residual id twice (else `RESIDUAL_CHANGED`);
 * 3. the sealer's notices agree with the table (else `NOTICE_MISMATCH`): a record since the indexed
 *    head is the one the notice names, and one below it (a late notice) is proven at its seq in the
 *    stored head's tree, which extends the indexed one;
 * 4. the index admits every residual id (else `RESIDUAL_CHANGED`: that lineage is dropped and
 *    the rest applied again).
 *
 * Pure apart from the node store: nothing is signed or committed here.
 *
 * @throws {InvalidInputError} when two candidates name one lineage, `held` lacks one, or a
 *   candidate's `extendedFrom` does not prove its records (the caller offers only one that
 *   `checkFrontierExtension` accepted, else the proofs: a frontier from its own memory that fails
 *   is no evidence about the table, and never admits anything)
 * @throws {IndexNodeMissingError} when a node is missing or edited; what the store throws
 */
export async function integrate(input: IntegrationInput): Promise<IntegrationResult> {
  const evidence: IntegrationEvidence[] = [];
  const admitted = new Map<string, IndexUpdate[]>();
  const unchanged: string[] = [];
  const seen = new Set<string>();
  for (const candidate of input.candidates) {
    if (seen.has(candidate.lineageId)) {
      throw new InvalidInputError('integration', [
        { path: candidate.lineageId, message: 'two candidates for one lineage' },
      ]);
    }
    seen.add(candidate.lineageId);
    if (!input.held.has(candidate.lineageId)) {
      throw new InvalidInputError('integration', [
        { path: candidate.lineageId, message: 'the held entry of this lineage was not read' },
      ]);
    }
    const decided = decideLineage(
      candidate,
      input.held.get(candidate.lineageId) ?? null,
      input.notices.filter((n) => n.lineageId === candidate.lineageId),
    );
    if ('refused' in decided) {
      evidence.push(decided.refused);
      continue;
    }
    evidence.push(...decided.resealed);
    if (decided.updates.length === 0) unchanged.push(candidate.lineageId);
    else admitted.set(candidate.lineageId, decided.updates);
  }

  const staged = new StagedIndexNodeStore(input.store);
  let indexRoot = input.previous.indexRoot;
  for (;;) {
    const updates = [...admitted.values()].flat();
    if (updates.length === 0) break;
    let applied: Awaited<ReturnType<typeof applyIndexUpdates>>;
    try {
      applied = await applyIndexUpdates(staged, input.previous.indexRoot, updates);
    } catch (error) {
      if (!(error instanceof IndexNodeMissingError)) throw error;
      // A hidden node leaves out only the lineages whose keys' paths cross it; the rest are applied again.
      staged.discard();
      const crossing = await lineagesCrossingMissingNodes(staged, input.previous.indexRoot, admitted);
      if (crossing.length === 0) throw error;
      for (const [lineageId, missing] of crossing) {
        admitted.delete(lineageId);
        evidence.push(missingNodeEvidence(lineageId, missing));
      }
      continue;
    }
    if (applied.findings.length === 0) {
      indexRoot = applied.root;
      break;
    }
    staged.discard();
    for (const finding of applied.findings) {
      const { lineageId } = finding.key;
      const kept = admitted.get(lineageId);
      if (!kept) continue;
      evidence.push({ ...finding, lineageId });
      if (finding.kind === 'RESIDUAL_CHANGED') {
        // The index keeps the first sealing; the lineage's head and its other residual ids still enter.
        const { residualId } = finding.key;
        admitted.set(
          lineageId,
          kept.filter((u) => !(u.kind === 'residual' && u.residualId === residualId)),
        );
      } else {
        admitted.delete(lineageId);
      }
    }
  }
  const tilesWritten = await staged.flush();
  const changed = Buffer.compare(indexRoot, input.previous.indexRoot) !== 0;
  const next = changed ? appendIndexRoot(input.previous, indexRoot) : null;
  const integrated = [...admitted.keys()];
  if (!changed) unchanged.push(...integrated.splice(0));
  return {
    integrated,
    unchanged,
    evidence,
    indexRoot,
    next,
    checkpoint: next ? deploymentCheckpoint(input.origin, next.state) : null,
    tilesWritten,
  };
}

/**
 * A lineage refused whole, or its updates with the residual ids sealed a second time since the
 * indexed head (`RESIDUAL_CHANGED`: the first sealing is mapped, the second is not).
 */
/**
 * The lineages with a key whose path from `root` crosses a node the store does not hold (or holds
 * edited), with the first such node: the same walk `applyIndexUpdates` makes for those keys.
 */
async function lineagesCrossingMissingNodes(
  store: IndexNodeStore,
  root: Uint8Array,
  admitted: ReadonlyMap<string, readonly IndexUpdate[]>,
): Promise<[string, IndexNodeMissingError][]> {
  const crossing: [string, IndexNodeMissingError][] = [];
  for (const [lineageId, updates] of admitted) {
    for (const update of updates) {
      try {
        await proveIndexKey(store, root, entryKey(updateEntry(update)));
      } catch (error) {
        if (!(error instanceof IndexNodeMissingError)) throw error;
        crossing.push([lineageId, error]);
        break;
      }
    }
  }
  return crossing;
}

type Decision =
  | { readonly updates: IndexUpdate[]; readonly resealed: readonly IntegrationEvidence[] }
  | { readonly refused: IntegrationEvidence };

/** Steps 1–3 of {@link integrate} for one lineage. */
function decideLineage(
  candidate: LineageCandidate,
  held: LineageIndexValue | null,
  notices: readonly SealedRunNotice[],
): Decision {
  const { lineageId } = candidate;
  const refuse = (
    kind: 'HEAD_UNAUTHENTICATED' | 'HEAD_INCONSISTENT' | 'RECORD_UNPROVEN' | 'NOTICE_MISMATCH',
    reason: string,
  ): Decision => ({
    refused: { kind, lineageId, reason },
  });
  if ('unreadable' in candidate) return refuse('HEAD_UNAUTHENTICATED', candidate.unreadable);
  const { head } = candidate;
  const hex = (h: string) => Buffer.from(h, 'hex');

  // Step 1: the head, consistent with the indexed one, through the update rule.
  const { extendedFrom } = candidate;
  if (extendedFrom !== undefined) {
    // The extension proves consistency and every record's inclusion at once (step 2 then skips them).
    const unproven = checkFrontierExtension(held, extendedFrom, candidate.records, head);
    if (unproven !== null) {
      throw new InvalidInputError('integration', [
        { path: lineageId, message: `the offered frontier extension does not prove the records: ${unproven}` },
      ]);
    }
  } else if (held !== null && head.treeSize > held.treeSize) {
    const consistent = verifyConsistency({
      size1: held.treeSize,
      size2: head.treeSize,
      root1: hex(held.rootHash),
      root2: hex(head.rootHash),
      proof: candidate.consistency.map(hex),
    });
    if (!consistent) {
      return refuse(
        'HEAD_INCONSISTENT',
        `the stored head (size ${head.treeSize}, root ${head.rootHash}) does not extend the indexed one (size ${held.treeSize}, root ${held.rootHash}): two histories`,
      );
    }
  }
  const lineageUpdate: IndexUpdate = {
    kind: 'lineage',
    lineageId,
    value: head,
    consistentFrom: held === null ? null : { treeSize: held.treeSize, rootHash: held.rootHash },
  };
  const verdict = admitUpdate(held === null ? null : { kind: 'lineage', lineageId, value: held }, lineageUpdate);
  if (typeof verdict === 'object') return { refused: { ...verdict, lineageId } };

  // Step 2: every record since the indexed head, proven in the new one, each residual id once.
  const from = held?.treeSize ?? 0;
  const expected = Math.max(0, head.treeSize - from);
  if (candidate.records.length !== expected) {
    return refuse(
      'RECORD_UNPROVEN',
      `records ${from} to ${head.treeSize - 1} are needed; the table gave ${candidate.records.length}`,
    );
  }
  const residuals = new Map<string, ResidualIndexValue>();
  const resealed: IntegrationEvidence[] = [];
  const updates: IndexUpdate[] = verdict === 'APPLY' ? [lineageUpdate] : [];
  for (const [i, record] of candidate.records.entries()) {
    if (record.seq !== from + i) {
      return refuse('RECORD_UNPROVEN', `seq ${from + i} is missing (the table gave seq ${record.seq} there)`);
    }
    const included =
      extendedFrom !== undefined ||
      verifyInclusion({
        leafIndex: record.seq,
        treeSize: head.treeSize,
        leafHash: leafHash(hex(record.recordHash)),
        proof: record.inclusion.map(hex),
        rootHash: hex(head.rootHash),
      });
    if (!included) {
      return refuse(
        'RECORD_UNPROVEN',
        `record seq ${record.seq} (${record.recordHash}) is not the leaf the stored head (size ${head.treeSize}) holds there`,
      );
    }
    if (record.seq === head.treeSize - 1 && record.recordHash !== head.headRecordHash) {
      return refuse(
        'RECORD_UNPROVEN',
        `the head names record ${head.headRecordHash} but seq ${record.seq} is ${record.recordHash}`,
      );
    }
    const value = { seq: record.seq, recordHash: record.recordHash };
    const first = residuals.get(record.residualId);
    if (first) {
      // The record stays in the lineage's tree (the head covers it); the index keeps the first sealing.
      resealed.push({
        kind: 'RESIDUAL_CHANGED',
        lineageId,
        key: { kind: 'residual', lineageId, residualId: record.residualId },
        held: first,
        offered: value,
        reason: `residual ${record.residualId} of lineage ${lineageId} is sealed twice: seq ${first.seq} and seq ${record.seq}; the index keeps seq ${first.seq}`,
      });
      continue;
    }
    residuals.set(record.residualId, value);
    updates.push({ kind: 'residual', lineageId, residualId: record.residualId, value });
  }

  // Step 3: what the sealer said it sealed is what the table shows.
  for (const notice of notices) {
    if (notice.head.treeSize > head.treeSize) {
      return refuse(
        'NOTICE_MISMATCH',
        `the sealer sealed ${notice.head.treeSize} records, the table shows ${head.treeSize}: rolled back after the seal`,
      );
    }
    if (notice.head.treeSize === head.treeSize && notice.head.rootHash !== head.rootHash) {
      return refuse(
        'NOTICE_MISMATCH',
        `the sealer sealed root ${notice.head.rootHash} at size ${head.treeSize}, the table shows ${head.rootHash}`,
      );
    }
    for (const sealed of notice.residuals) {
      if (sealed.seq < from) {
        // A late notice: its records are integrated already, so they are proven in the stored head,
        // which step 1 showed extends (or is) the indexed one: the integrated leaf at that seq.
        const proof = candidate.noticedInclusion?.get(sealed.seq) ?? [];
        const integrated = verifyInclusion({
          leafIndex: sealed.seq,
          treeSize: head.treeSize,
          leafHash: leafHash(hex(sealed.recordHash)),
          proof: proof.map(hex),
          rootHash: hex(head.rootHash),
        });
        if (!integrated) {
          return refuse(
            'NOTICE_MISMATCH',
            `the sealer sealed residual ${sealed.residualId} as seq ${sealed.seq} (${sealed.recordHash}), which the index integrated up to size ${from} with another record there, or with a tree node the table no longer holds: rolled back and sealed again after the seal, or hidden`,
          );
        }
        continue;
      }
      const shown = candidate.records[sealed.seq - from];
      if (shown?.recordHash !== sealed.recordHash || shown.residualId !== sealed.residualId) {
        return refuse(
          'NOTICE_MISMATCH',
          `the sealer sealed residual ${sealed.residualId} as seq ${sealed.seq} (${sealed.recordHash}); the table holds another record there`,
        );
      }
    }
  }
  return { updates, resealed };
}
