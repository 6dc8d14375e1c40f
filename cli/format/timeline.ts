import type { TimelineRow } from '../../client/timeline-rows';
import type { ConflictRecord, RejectionRecord } from '../../shared/ports/lineage-store';
import { escapedText as t } from '../../shared/schemas/escaped-text';
import type { ChainVerification } from '../../shared/seal/chain-verification';
import { fieldLines, isoTime } from './output';
import { conflictJson, rejectionDetailLines, rejectionJson } from './write-outcome';

/** Timeline for `--json`: snake_case, stable. */
export function timelineJson(lineageId: string, rows: readonly TimelineRow[], verification: ChainVerification) {
  return {
    lineage_id: lineageId,
    verdict: verification.verdict,
    first_failure: verification.firstFailure,
    records: rows.map((r) => ({
      seq: r.seq,
      generation_epoch: r.generationEpoch,
      authority: r.authority,
      session_id: r.sessionId,
      residual_id: r.residualId,
      sealed_at: r.sealedAtMs === null ? null : isoTime(r.sealedAtMs),
      supersedes: r.supersedes && { seq: r.supersedes.seq, record_hash: r.supersedes.recordHash },
      guard_verdict_digest: r.guardVerdictDigest,
      verification: r.verification,
    })),
  };
}

/** A readable timeline: one line per record (seq, epoch, authority, session, residual, time, verdicts). */
export function timelineText(lineageId: string, rows: readonly TimelineRow[], verification: ChainVerification): string {
  const table: string[][] = [
    ['SEQ', 'EPOCH', 'AUTHORITY', 'SESSION', 'RESIDUAL', 'SEALED AT (UTC)', 'SUPERSEDES', 'GUARD', 'VERIFICATION'],
  ];
  for (const r of rows) {
    // Ids come from records as stored (a forged record's too): shown escaped.
    table.push([
      r.seq === null ? '?' : String(r.seq),
      r.generationEpoch === null ? '?' : String(r.generationEpoch),
      t(r.authority ?? '?'),
      t(r.sessionId ?? '?'),
      t(r.residualId ?? '?'),
      r.sealedAtMs === null ? '?' : isoTime(r.sealedAtMs),
      r.supersedes ? `seq ${r.supersedes.seq}` : '-',
      r.guardVerdictDigest ? `${r.guardVerdictDigest.slice(0, 12)}…` : '?',
      r.verification,
    ]);
  }
  const widths = table[0]?.map((_, col) => Math.max(...table.map((row) => (row[col] ?? '').length))) ?? [];
  const lines = table.map((row) =>
    row
      .map((cell, col) => cell.padEnd(widths[col] ?? 0))
      .join('  ')
      .trimEnd(),
  );
  const epochs = rows.map((r) => r.generationEpoch).filter((e): e is number => e !== null);
  const summary = fieldLines([
    ['lineage', lineageId],
    ['records', String(rows.length)],
    ['epochs', epochs.length === 0 ? '(none)' : `${Math.min(...epochs)} to ${Math.max(...epochs)}`],
    ['chain', verification.verdict],
    [
      'first failure',
      verification.firstFailure
        ? `seq ${verification.firstFailure.seq ?? '?'}: ${verification.firstFailure.verdict}: ${verification.firstFailure.reason}`
        : '(none)',
    ],
  ]);
  return `${summary}\n${lines.join('\n')}\n`;
}

/** Whether a listed refusal's signed statement checked (`ResealClient.readRefusals`); absent: not checked. */
type MaybeSigned = { readonly signatureVerified?: boolean };

/** The signature status of a refusal as printed: a refusal whose statement does not check may be a forgery. */
function signedText(item: MaybeSigned & { readonly unreadable?: string }): string {
  if (item.unreadable) return '  (NOT signed: the stored item is unreadable: do not trust)';
  if (item.signatureVerified === undefined) return '';
  return item.signatureVerified ? '  (signature verified)' : '  (NOT signed by the deciding function: do not trust)';
}

/**
 * The rejections and conflicts of a lineage as text, for `reseal inspect --lineage` after the
 * timeline: one line per record, oldest first, with whether its signed statement checks, then
 * its details.
 */
export function refusalsText(
  rejections: readonly (RejectionRecord & MaybeSigned)[],
  conflicts: readonly (ConflictRecord & MaybeSigned)[],
): string {
  let text = `\nrejections (${rejections.length})${rejections.length === 0 ? ': none' : ':'}\n`;
  for (const r of rejections) {
    text += `  ${isoTime(r.atMs)}  ${t(r.stage)}  ${t(r.reason)}  residual ${t(r.residualId ?? '?')}  message ${t(r.messageId)}${signedText(r)}\n`;
    text += rejectionDetailLines(r, '    ');
  }
  text += `\nconflicts (${conflicts.length})${conflicts.length === 0 ? ': none' : ':'}\n`;
  for (const c of conflicts)
    text += `  ${isoTime(c.atMs)}  ${t(c.reason)}  residual ${t(c.residualId)}: ${t(c.detail)}${signedText(c)}${c.unreadable ? `  [${t(c.unreadable)}]` : ''}\n`;
  return text;
}

/** The rejections and conflicts of a lineage for `reseal inspect --lineage --json`. */
export function refusalsJson(
  rejections: readonly (RejectionRecord & MaybeSigned)[],
  conflicts: readonly (ConflictRecord & MaybeSigned)[],
) {
  return {
    rejections: rejections.map((r) => ({
      ...rejectionJson(r),
      signature_verified: r.unreadable ? false : (r.signatureVerified ?? null),
      unreadable: r.unreadable ?? null,
    })),
    conflicts: conflicts.map((c) => ({
      ...conflictJson(c),
      signature_verified: c.unreadable ? false : (c.signatureVerified ?? null),
      unreadable: c.unreadable ?? null,
    })),
  };
}
