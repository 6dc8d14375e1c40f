import { type WrittenBy, writtenByText } from '../../client/written-by';

/**
 * The `written by:` section of `reseal verify` and `reseal inspect` text (docs/cli.md, "Who wrote
 * it"): one line per record that verifies, then how many do not (their writer is never shown
 * outside the untrusted section), counting apart those sealed past the indexed tree head, from
 * `awaitingFromSeq` on (awaiting integration, not failures). Empty for no records.
 */
export function writtenByLines(
  records: readonly { readonly seq: number | null; readonly writtenBy: WrittenBy | null }[],
  awaitingFromSeq: number | null = null,
): string {
  if (records.length === 0) return '';
  let text = 'written by:\n';
  let unverified = 0;
  let awaiting = 0;
  for (const record of records) {
    if (record.writtenBy !== null) text += `  seq ${record.seq ?? '?'}: ${writtenByText(record.writtenBy)}\n`;
    else if (awaitingFromSeq !== null && record.seq !== null && record.seq >= awaitingFromSeq) awaiting += 1;
    else unverified += 1;
  }
  if (awaiting > 0) {
    text += `  (${awaiting} record(s) sealed, awaiting integration: their writer is shown once integrated)\n`;
  }
  if (unverified > 0) text += `  (${unverified} record(s) do not verify: their writer is not shown)\n`;
  return text;
}
