import { freshnessShape } from '../../client/shapes/freshness-shape';
import { VERIFICATION_FORMAT, type VerificationShape } from '../../client/shapes/verification-shape';
import { writtenByOutput } from '../../client/shapes/written-by-output';
import type { Freshness } from '../../client/verified-recall';
import { writtenByOf } from '../../client/written-by';
import type { ChainVerification } from '../../shared/seal/chain-verification';
import type { TrustedHead } from '../../shared/seal/trusted-head';
import { VerificationVerdict } from '../../shared/seal/verification-verdict';
import type { MacCheck } from '../mac-anchor-choice';
import { AwaitingIntegrationText } from './awaiting-integration-text';
import { fieldLines } from './field-lines';
import { freshnessRow } from './freshness';
import { writtenByLines } from './written-by-lines';

/** What was verified, besides the core's result. */
export interface VerificationContext {
  readonly lineageId: string;
  readonly macCheck: MacCheck;
  readonly keyId: string;
  readonly checkpoint: (TrustedHead & { readonly source: string }) | null;
  /**
   * The signed checkpoint kept in the checkpoint store (`--lineage` only): its size, `null` size
   * when the kept note does not verify, or `null` (no store, or nothing kept yet).
   */
  readonly kept?: { readonly size: number | null } | null;
  readonly note: string | null;
  /**
   * `--lineage` only: how the records were authenticated: `signed-tree` (the default: the walk
   * without MACs plus every record proven in the signed tree) or `macs` (`--audit-macs`: KMS
   * `VerifyMac` per record).
   */
  readonly authenticatedBy?: 'signed-tree' | 'macs';
  /**
   * `--lineage` and `inspect --lineage` only: where the verified head stands against the
   * deployment log (docs/cli.md, "Freshness"), `null` when not checked.
   */
  readonly freshness?: Freshness | null;
  /**
   * `--lineage` only: the tree head the walk was tied to (docs/verifiable-log.md, "Verifying a
   * whole lineage"): its size and what vouches for it (the head item's signed lineage checkpoint,
   * or the index entry under the authenticated deployment checkpoint); `null`: none.
   */
  readonly treeHead?: { readonly size: number; readonly vouchedBy: 'signed-checkpoint' | 'index' } | null;
  /** `--lineage` only: the first seq sealed past the indexed tree head (awaiting integration), or `null`. */
  readonly awaitingFromSeq?: number | null;
}

/** The `checkpoint` row when no `--checkpoint` was given: what the walk's tail was checked against, if anything. */
function noCheckpointGiven(kept: VerificationContext['kept']): string {
  if (!kept) return '(none: tail truncation cannot be detected)';
  if (kept.size === null) return '(none given; the kept signed checkpoint does not verify)';
  return `(none given; checked against the kept signed checkpoint of ${kept.size} records: --checkpoint-store)`;
}

/**
 * A chain verification for `--json`: the `reseal.verification/1` shape (client/shapes/verification-shape.ts).
 * `records` lists every record in input order with its verdict.
 */
export function verificationJson(result: ChainVerification, context: VerificationContext): VerificationShape {
  return {
    format: VERIFICATION_FORMAT,
    verdict: result.verdict,
    lineageId: context.lineageId,
    recordsChecked: result.records.length,
    macCheck: context.macCheck,
    authenticatedBy: context.authenticatedBy ?? null,
    keyId: context.keyId,
    checkpoint: context.checkpoint && {
      seq: context.checkpoint.seq,
      recordHash: context.checkpoint.recordHash,
      source: context.checkpoint.source,
    },
    firstFailure: result.firstFailure && {
      seq: result.firstFailure.seq,
      verdict: result.firstFailure.verdict,
      reason: result.firstFailure.reason,
    },
    // `--lineage` only: the signed checkpoint kept in the checkpoint store.
    keptCheckpoint: context.kept ? { size: context.kept.size } : null,
    verifiedHead: result.head && { seq: result.head.seq, recordHash: result.head.recordHash },
    note: context.note,
    freshness: freshnessShape(context.freshness ?? null),
    treeHead: context.treeHead ? { size: context.treeHead.size, vouchedBy: context.treeHead.vouchedBy } : null,
    awaitingIntegrationFromSeq: context.awaitingFromSeq ?? null,
    records: result.records.map((r) => ({
      seq: r.seq,
      residualId: r.residualId,
      verdict: r.verdict,
      reason: r.reason,
      // Who wrote it: only for a record that verifies (docs/authorship.md, "Who wrote it").
      writtenBy: writtenByOutput(writtenByOf(r)),
    })),
  };
}

const MAC_CHECK_TEXT: Record<MacCheck, string> = {
  kms: 'KMS VerifyMac',
  'local-key': 'local HMAC key',
  unavailable: 'not checked (no key reachable)',
  unpinned: 'not checked (key not pinned: named only by the data)',
  'signed-tree':
    'not called: each record proven a leaf of the tree head instead (--audit-macs checks every MAC with KMS)',
};

/**
 * A chain verification as readable text: the verdict rows, then who wrote each record that
 * verifies (`written by`, one line per record; a record that does not verify is counted, its
 * writer never shown).
 */
export function verificationText(result: ChainVerification, context: VerificationContext): string {
  const failure = result.firstFailure;
  // Records sealed past the indexed tree head: awaiting integration, never a tamper verdict in text.
  const awaiting = context.awaitingFromSeq ?? null;
  const rows: [string, string][] = [
    ['verdict', awaiting === null ? result.verdict : AwaitingIntegrationText.verdict],
    ['lineage', context.lineageId],
    ['records checked', String(result.records.length)],
    ...(context.authenticatedBy === undefined
      ? []
      : [
          [
            'authenticated by',
            context.authenticatedBy === 'signed-tree'
              ? 'the signed tree (every record a leaf of the tree head: the signed lineage checkpoint, or the index entry; chain walked without MACs)'
              : 'MAC audit (KMS VerifyMac per record), tied to the tree head',
          ] as [string, string],
        ]),
    ['MACs', `${MAC_CHECK_TEXT[context.macCheck]}, key ${context.keyId}`],
    [
      'checkpoint',
      context.checkpoint
        ? `seq ${context.checkpoint.seq} ${context.checkpoint.recordHash} (${context.checkpoint.source})`
        : noCheckpointGiven(context.kept),
    ],
    [
      'first failure',
      awaiting !== null
        ? AwaitingIntegrationText.firstFailure(awaiting)
        : failure
          ? `seq ${failure.seq ?? '?'}: ${failure.verdict}: ${failure.reason}`
          : '(none)',
    ],
    [
      'verified head',
      result.head && result.verdict === VerificationVerdict.VERIFIED_INTACT
        ? `seq ${result.head.seq} ${result.head.recordHash}`
        : result.head && awaiting !== null
          ? `seq ${result.head.seq} ${result.head.recordHash} (the last integrated record)`
          : result.head
            ? `(intact prefix ends at seq ${result.head.seq})`
            : '(none)',
    ],
  ];
  if (context.treeHead) {
    rows.push([
      'tree head',
      `${context.treeHead.size} records, ${context.treeHead.vouchedBy === 'index' ? 'the index entry under the authenticated deployment checkpoint' : "the head item's signed lineage checkpoint"}`,
    ]);
  }
  if (context.awaitingFromSeq !== undefined && context.awaitingFromSeq !== null) {
    rows.push([
      'awaiting',
      `seq ${context.awaitingFromSeq} on: sealed, awaiting integration (past the tree head the index holds; not tampering: verify again after the next integration)`,
    ]);
  }
  if (context.note) rows.push(['note', context.note]);
  const fresh = context.freshness === undefined ? null : freshnessRow(context.freshness);
  if (fresh) rows.push(fresh);
  return (
    fieldLines(rows) +
    writtenByLines(
      result.records.map((r) => ({ seq: r.seq, writtenBy: writtenByOf(r) })),
      awaiting,
    )
  );
}
