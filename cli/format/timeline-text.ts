import type { TimelineRow } from '../../client/timeline-rows';
import { isoTime } from '../../shared/iso-time';
import { escapedText as t } from '../../shared/schemas/escaped-text';
import type { ChainVerification } from '../../shared/seal/chain-verification';
import { AwaitingIntegrationText } from './awaiting-integration-text';
import { fieldLines } from './field-lines';
import { shownRow } from './shown-row';
import { writtenByLines } from './written-by-lines';

/**
 * A readable timeline: one line per record (seq, epoch, authority, session, residual, time, verdicts).
 * `awaitingFromSeq` (`inspect --lineage` tied to the index): the first seq sealed past the indexed
 * tree head; the chain and those rows then read `AWAITING_INTEGRATION`, not a tamper verdict
 * (docs/cli.md, "Online commands").
 */
export function timelineText(
  lineageId: string,
  rows: readonly TimelineRow[],
  verification: ChainVerification,
  awaitingFromSeq: number | null = null,
): string {
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
      AwaitingIntegrationText.rowVerdict(r.seq, r.verification, awaitingFromSeq),
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
    ['chain', awaitingFromSeq === null ? verification.verdict : AwaitingIntegrationText.verdict],
    [
      'first failure',
      awaitingFromSeq !== null
        ? AwaitingIntegrationText.firstFailure(awaitingFromSeq)
        : verification.firstFailure
          ? `seq ${verification.firstFailure.seq ?? '?'}: ${verification.firstFailure.verdict}: ${verification.firstFailure.reason}`
          : '(none)',
    ],
  ]);
  return `${summary}\n${lines.join('\n')}\n${writtenByLines(rows.map(shownRow), awaitingFromSeq)}`;
}
