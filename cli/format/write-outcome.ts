import { staleStateHints } from '../../client/stale-state-hints';
import type { WriteOutcome } from '../../client/write-outcomes';
import { printable } from '../../shared/errors';
import type { ConflictRecord, RejectionRecord } from '../../shared/ports/lineage-store';
import { escapedText as t } from '../../shared/schemas/escaped-text';
import type { LineageHead } from '../../shared/seal/sealed-record';
import { ExitCode } from '../exit-codes';
import { fieldLines, isoTime } from './output';

/** Exit code of a write's outcome: 0 sealed; 10 (action needed) rejected or in conflict. */
export function writeOutcomeExitCode(outcome: WriteOutcome): ExitCode {
  return outcome.kind === 'SEALED' ? ExitCode.OK : ExitCode.ACTION_NEEDED;
}

/** `SEQ:RECORD_HASH`, as `--checkpoint` takes it. */
export function checkpointText(head: Pick<LineageHead, 'seq' | 'recordHash'>): string {
  return `${head.seq}:${head.recordHash}`;
}

function headJson(head: LineageHead | null) {
  return (
    head && {
      lineage_id: head.lineageId,
      seq: head.seq,
      record_hash: head.recordHash,
      generation_epoch: head.generationEpoch,
      mac: head.mac,
      key_id: head.keyId,
    }
  );
}

/** A stored rejection for `--json` (snake_case; the raw body preview is left out). */
export function rejectionJson(r: RejectionRecord) {
  return {
    stage: r.stage,
    reason: r.reason,
    lineage_id: r.lineageId,
    residual_id: r.residualId,
    message_id: r.messageId,
    verdict_digest: r.verdictDigest,
    body_digest: r.bodyDigest,
    issues: r.issues.map((i) => ({ path: i.path, message: i.message })),
    rejected_variables: r.rejectedVariables.map((v) => ({ name: v.name, reason: v.reason, detail: v.detail })),
    request_violations: r.requestViolations.map((v) => ({ field: v.field, reason: v.reason, detail: v.detail })),
    rejected_at: isoTime(r.atMs),
  };
}

/** A stored conflict for `--json` (snake_case; the attempted header is left out). */
export function conflictJson(c: ConflictRecord) {
  return {
    reason: c.reason,
    detail: c.detail,
    lineage_id: c.lineageId,
    residual_id: c.residualId,
    expected_head: headJson(c.expectedHead),
    observed_head: headJson(c.observedHead),
    conflicted_at: isoTime(c.atMs),
  };
}

/** The outcome part of `reseal publish --wait --json`. */
export function writeOutcomeJson(outcome: WriteOutcome) {
  switch (outcome.kind) {
    case 'SEALED':
      return {
        outcome: outcome.kind,
        head: headJson(outcome.head),
        checkpoint: checkpointText(outcome.head),
        signed_checkpoint: outcome.checkpoint,
        inclusion_proof: {
          leaf_index: outcome.proof.leafIndex,
          tree_size: outcome.proof.treeSize,
          hashes: outcome.proof.inclusionProof,
        },
      };
    case 'REJECTED':
      return { outcome: outcome.kind, rejection: rejectionJson(outcome.rejection) };
    case 'CONFLICT':
      return { outcome: outcome.kind, conflict: conflictJson(outcome.conflict) };
  }
}

/**
 * The detail lines of a rejection: each rejected variable, request violation and schema issue,
 * every stored string escaped ({@link t escapedText}, `printable` for paths and names): a
 * forged item cannot add a line or rewrite one on a terminal.
 */
export function rejectionDetailLines(r: RejectionRecord, indent: string): string {
  let text = r.unreadable ? `${indent}${t(r.unreadable)}: the stored item is malformed\n` : '';
  for (const v of r.rejectedVariables)
    text += `${indent}variable ${t(JSON.stringify(v.name))}: ${t(v.reason)}: ${t(v.detail)}\n`;
  for (const v of r.requestViolations) text += `${indent}field ${printable(v.field)}: ${t(v.reason)}: ${t(v.detail)}\n`;
  for (const i of r.issues) text += `${indent}at ${printable(i.path || '<root>')}: ${t(i.message)}\n`;
  return text;
}

/** What the writer can do about a conflict, by reason. */
const CONFLICT_HINTS: Readonly<Record<string, string>> = {
  STALE_EPOCH: 'fenced out: a newer generation owns this lineage; do not retry with this epoch',
  LOST_RACE: 'the head kept moving: publish the write again (same residual id)',
  LINEAGE_INCONSISTENT:
    "the lineage's stored head disagrees with its records: run reseal verify --lineage; retrying cannot help",
};

/**
 * The head a conflict found, as `seq N, epoch E`, when it carries one (`observedHead`); `null`
 * otherwise (a `STALE_EPOCH` conflict names the newer epoch in its detail only), and the line
 * is then left out rather than printed as `(not known)`.
 */
export function conflictHeadFound(c: Pick<ConflictRecord, 'observedHead'>): string | null {
  if (c.observedHead) return `seq ${c.observedHead.seq}, epoch ${c.observedHead.generationEpoch}`;
  return null;
}

/** The outcome of `reseal publish --wait` as readable text. */
export function writeOutcomeText(outcome: WriteOutcome): string {
  switch (outcome.kind) {
    case 'SEALED': {
      const { head } = outcome;
      return fieldLines([
        ['outcome', 'SEALED'],
        ['seq', String(head.seq)],
        ['epoch', String(head.generationEpoch)],
        ['record hash', head.recordHash],
        ['proof', `leaf ${outcome.proof.leafIndex} of the signed checkpoint of ${outcome.proof.treeSize} records`],
        ['checkpoint', `--checkpoint ${checkpointText(head)}  (keep it: detects a cut tail or a rewrite)`],
      ]);
    }
    case 'REJECTED': {
      const r = outcome.rejection;
      let text = fieldLines([
        ['outcome', `REJECTED by the ${r.stage === 'GUARD' ? 'guard' : 'sealer'} (signature verified)`],
        ['reason', r.reason],
        ['rejected variables', String(r.rejectedVariables.length)],
        ['request violations', String(r.requestViolations.length)],
        ['at', isoTime(r.atMs)],
      ]);
      text += rejectionDetailLines(r, '  ');
      for (const hint of staleStateHints({ isSafe: false, ...r })) text += `${hint}\n`;
      return text;
    }
    case 'CONFLICT': {
      const c = outcome.conflict;
      const found = conflictHeadFound(c);
      const hint = CONFLICT_HINTS[c.reason] ?? 'not appended: see reseal verify --lineage before writing again';
      return `${fieldLines([
        ['outcome', 'CONFLICT: not appended (signed by the sealer)'],
        ['reason', c.reason],
        ['detail', c.detail],
        ...(found ? ([['head found', found]] as const) : []),
        ['at', isoTime(c.atMs)],
      ])}${hint}\n`;
    }
  }
}
