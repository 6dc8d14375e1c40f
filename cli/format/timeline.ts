import type { TimelineRow } from '../../client/timeline-rows';
import type { ConflictRecord, RejectionRecord } from '../../shared/ports/lineage-store';
import { escapedText as t } from '../../shared/schemas/escaped-text';
import type { ChainVerification } from '../../shared/seal/chain-verification';
import { VerificationVerdict } from '../../shared/seal/verification-verdict';
import { fieldLines, isoTime } from './output';
import { conflictJson, rejectionDetailLines, rejectionJson } from './write-outcome';

/** Whether a timeline row's record verified: only then are its stored strings shown outside `untrusted`. */
export const rowVerified = (r: TimelineRow): boolean => r.verification === VerificationVerdict.VERIFIED_INTACT;

/**
 * A row as shown outside `untrusted`: a record that does not verify keeps its seq, epoch and
 * verdict, its stored strings and times read as unknown (docs/cli.md, "Untrusted data").
 */
const shownRow = (r: TimelineRow): TimelineRow =>
  rowVerified(r)
    ? r
    : {
        ...r,
        authority: null,
        sessionId: null,
        residualId: null,
        sealedAtMs: null,
        supersedes: null,
        guardVerdictDigest: null,
      };

/** Timeline for `--json`: snake_case, stable; a record that does not verify shows no stored string (see `untrusted`). */
export function timelineJson(lineageId: string, rows: readonly TimelineRow[], verification: ChainVerification) {
  return {
    lineage_id: lineageId,
    verdict: verification.verdict,
    first_failure: verification.firstFailure && {
      ...verification.firstFailure,
      reason: t(verification.firstFailure.reason),
    },
    records: rows.map(shownRow).map((r) => ({
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
  for (const r of rows.map(shownRow)) {
    // A record that does not verify shows no stored string here: its text is in the untrusted section.
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
export type MaybeSigned = { readonly signatureVerified?: boolean; readonly unreadable?: string };

/**
 * Whether a listed refusal is shown as the deciding function's: its signed statement checks on
 * an item read whole. Any other is shown only in the untrusted section (cli/format/untrusted-section.ts).
 */
export const refusalSigned = (item: MaybeSigned): boolean => item.signatureVerified === true && !item.unreadable;

/** A rejection's listing line (without its marker). */
export const rejectionLine = (r: RejectionRecord): string =>
  `${isoTime(r.atMs)}  ${t(r.stage)}  ${t(r.reason)}  residual ${t(r.residualId ?? '?')}  message ${t(r.messageId)}`;

/** A conflict's listing line (without its marker). */
export const conflictLine = (c: ConflictRecord): string =>
  `${isoTime(c.atMs)}  ${t(c.reason)}  residual ${t(c.residualId)}: ${t(c.detail)}`;

/**
 * The signed rejections and conflicts of a lineage as text, for `reseal inspect --lineage` after
 * the timeline: one line per record, oldest first, then its details. Unsigned or unreadable ones
 * are left to the untrusted section.
 */
export function refusalsText(
  rejections: readonly (RejectionRecord & MaybeSigned)[],
  conflicts: readonly (ConflictRecord & MaybeSigned)[],
): string {
  const signedRejections = rejections.filter(refusalSigned);
  const signedConflicts = conflicts.filter(refusalSigned);
  let text = `\nrejections (${signedRejections.length})${signedRejections.length === 0 ? ': none signed' : ':'}\n`;
  for (const r of signedRejections) {
    text += `  ${rejectionLine(r)}  (signature verified)\n`;
    text += rejectionDetailLines(r, '    ');
  }
  text += `\nconflicts (${signedConflicts.length})${signedConflicts.length === 0 ? ': none signed' : ':'}\n`;
  for (const c of signedConflicts) text += `  ${conflictLine(c)}  (signature verified)\n`;
  return text;
}

/** The signed rejections and conflicts of a lineage for `reseal inspect --lineage --json` (unsigned ones: `untrusted`). */
export function refusalsJson(
  rejections: readonly (RejectionRecord & MaybeSigned)[],
  conflicts: readonly (ConflictRecord & MaybeSigned)[],
) {
  return {
    rejections: rejections
      .filter(refusalSigned)
      .map((r) => ({ ...rejectionJson(r), signature_verified: true, unreadable: null })),
    conflicts: conflicts
      .filter(refusalSigned)
      .map((c) => ({ ...conflictJson(c), signature_verified: true, unreadable: null })),
  };
}
