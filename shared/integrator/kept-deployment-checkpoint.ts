import type { Checkpoint } from '../log/checkpoint';
import { hashesEqual } from '../log/hashes-equal';
import { encodeBase64 } from '../log/strict-base64';
import { verifyConsistency } from '../log/verify-consistency';
import type { ReAnchorNotice } from './re-anchor-statement';

/** How a deployment checkpoint a client kept stands against the current one. */
export type KeptCheckpointFinding =
  /** The same history: one extends the other (RFC 9162 consistency). */
  | { readonly kind: 'CONSISTENT'; readonly reason: string }
  /**
   * Another history, which the current checkpoint's re-anchor statement accounts for: the kept
   * checkpoint lies in the leaves the restore lost (docs/deployment-log.md, "Re-anchor").
   */
  | {
      readonly kind: 'EXPLAINED_BY_RE_ANCHOR';
      readonly reason: string;
      /** The statement whose lost part holds the kept checkpoint. */
      readonly reAnchor: ReAnchorNotice;
      /** The statements from `reAnchor` to the current history's, oldest first, each linked to the next. */
      readonly chain: readonly ReAnchorNotice[];
    }
  /**
   * The kept checkpoint is larger than the current one, and nothing shows them two histories: the
   * table shows an older state than the log signed (a rollback, or a replayed head), not a fork.
   */
  | { readonly kind: 'NOT_NEWEST'; readonly reason: string }
  /** Two histories that nothing accounts for: a fork under the log key, or a re-anchor not shown. */
  | { readonly kind: 'FORK'; readonly reason: string };

/** Input of {@link checkKeptDeploymentCheckpoint}; both checkpoints already verified with the log key. */
export interface KeptCheckpointInput {
  readonly kept: Checkpoint;
  readonly current: Checkpoint;
  /** The re-anchor the current checkpoint's chain verified (`reAnchor` of the finding), or `null`. */
  readonly reAnchor: ReAnchorNotice | null;
  /**
   * The re-anchors before `reAnchor`, oldest first, each verified with the log key by the caller
   * (the head item's `reAnchorChain`, docs/deployment-log.md, "Re-anchor"); none when absent.
   */
  readonly earlier?: readonly ReAnchorNotice[];
  /**
   * RFC 9162 consistency proof from the smaller to the larger of the two (empty for equal sizes).
   * For a kept checkpoint larger than the current one, empty when none could be built (the table
   * holds no nodes past the current size): that is no evidence of two histories.
   */
  readonly consistency: readonly Uint8Array[];
  /**
   * When the policy's witnesses vouch the kept checkpoint existed by, POSIX seconds
   * (`quorumCosignedAt` of the kept note), or `null` (none: `quorum none`, or a note without a
   * quorum of cosignatures). A statement explains only a kept checkpoint cosigned before it was
   * made; without this time, only one no larger than the current one (docs/deployment-log.md,
   * "What clients see"). @default null
   */
  readonly keptTimeSeconds?: number | null;
}

/**
 * Compares a kept deployment checkpoint with the current one (docs/deployment-log.md, "Re-anchor",
 * "What clients see"): `EXPLAINED_BY_RE_ANCHOR` when the current history is re-anchored and the
 * kept checkpoint is of the old history's lost part (larger than the restored head, at most the
 * lost checkpoint, and that very checkpoint at its size) and not proven consistent, by the
 * current statement or by an earlier one linked to it statement by statement (each next one made
 * no earlier and losing a checkpoint past the previous one's re-anchor leaf), **and** the
 * explaining statement is younger than the kept checkpoint: its witnesses cosigned it before the
 * statement's `time` (`keptTimeSeconds`), or, without that time, it is no larger than the current
 * one. The size range alone never explains a kept checkpoint larger than the current one: a head
 * of the re-anchored history put back under a newer one falls in it too. Otherwise, a
 * kept checkpoint no larger than the current one is `CONSISTENT` when the proof shows the current
 * extends it, else `FORK`; a larger one is `NOT_NEWEST` (the current is older than what the log
 * signed: a rollback), or `FORK` when a proof given shows the current is no prefix of it, or it
 * has the size of the statement's lost checkpoint with another root. Pure; never throws.
 */
export function checkKeptDeploymentCheckpoint(input: KeptCheckpointInput): KeptCheckpointFinding {
  const { kept, current, reAnchor } = input;
  if (kept.origin !== current.origin) {
    return { kind: 'FORK', reason: `the kept checkpoint is of ${kept.origin}, not ${current.origin}` };
  }
  const keptLarger = kept.size > current.size;
  const [older, newer] = keptLarger ? [current, kept] : [kept, current];
  const consistent = verifyConsistency({
    size1: older.size,
    size2: newer.size,
    root1: older.rootHash,
    root2: newer.rootHash,
    proof: [...input.consistency],
  });
  if (consistent && !keptLarger) {
    return {
      kind: 'CONSISTENT',
      reason: `the kept checkpoint of ${kept.size} and the current one of ${current.size} are one history`,
    };
  }
  if (reAnchor && !consistent) {
    const chain = [...(input.earlier ?? []), reAnchor];
    const explained = explainByChain(kept, chain, (statement) =>
      input.keptTimeSeconds == null ? !keptLarger : input.keptTimeSeconds < statement.timeSeconds,
    );
    if (explained !== null && typeof explained === 'object') {
      const via =
        explained.length > 1 ? `, then ${explained.length - 1} later re-anchor(s) up to the current history` : '';
      const [first] = explained as [ReAnchorNotice];
      return {
        kind: 'EXPLAINED_BY_RE_ANCHOR',
        reason: `the kept checkpoint of ${kept.size} is of the history the operator re-anchored at ${first.restoredSize} (lost up to ${first.lostSize}: ${first.reason})${via}`,
        reAnchor: first,
        chain: explained,
      };
    }
    if (explained === 'TWO_ROOTS') {
      return {
        kind: 'FORK',
        reason: `two roots at size ${kept.size} under the log key: the kept one and the lost one the re-anchor statement names`,
      };
    }
  }
  if (keptLarger && (consistent || input.consistency.length === 0)) {
    return {
      kind: 'NOT_NEWEST',
      reason: `the current checkpoint of ${current.size} is older than the kept one of ${kept.size}: the table shows a rolled-back state of the log`,
    };
  }
  const same = kept.size === current.size && !hashesEqual(kept.rootHash, current.rootHash);
  return {
    kind: 'FORK',
    reason: same
      ? `two roots at size ${kept.size} under the log key, and no re-anchor accounts for the kept one`
      : `the kept checkpoint of ${kept.size} and the current one of ${current.size} are two histories, and no re-anchor accounts for the kept one`,
  };
}

/**
 * Whether `newer` re-anchored the history `older` began (docs/deployment-log.md, "Re-anchor", "A
 * chain of re-anchors"): another statement, made no earlier, whose lost checkpoint lies past
 * `older`'s re-anchor leaf (at index `older.restoredSize`), so in the history `older` started.
 */
function linked(older: ReAnchorNotice, newer: ReAnchorNotice): boolean {
  return (
    older.statementHash !== newer.statementHash &&
    newer.timeSeconds >= older.timeSeconds &&
    newer.lostSize > older.restoredSize
  );
}

/**
 * The statements, from the one whose lost part holds `kept` to the newest, when the chain
 * (oldest first) is linked from there on; `'TWO_ROOTS'` when none does but one names a lost
 * checkpoint of `kept`'s size with another root; else `null`. A broken link stops the search:
 * no statement before it explains anything. A statement for which `before` is false (the kept
 * checkpoint not shown older than it) explains nothing, and its lost root proves no fork either.
 */
function explainByChain(
  kept: Checkpoint,
  chain: readonly ReAnchorNotice[],
  before: (statement: ReAnchorNotice) => boolean,
): readonly ReAnchorNotice[] | 'TWO_ROOTS' | null {
  let twoRoots = false;
  for (let j = chain.length - 1; j >= 0; j -= 1) {
    const statement = chain[j] as ReAnchorNotice;
    const next = chain[j + 1];
    if (next !== undefined && !linked(statement, next)) break;
    if (kept.size <= statement.restoredSize || kept.size > statement.lostSize) continue;
    if (!before(statement)) continue;
    if (kept.size === statement.lostSize && encodeBase64(kept.rootHash) !== statement.lostRootHash) {
      twoRoots = true;
      continue;
    }
    return chain.slice(j);
  }
  return twoRoots ? 'TWO_ROOTS' : null;
}
