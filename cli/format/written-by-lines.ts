import { type WrittenBy, writtenByText } from '../../client/written-by';

/**
 * The `written by:` section of `reseal verify` and `reseal inspect` text (docs/cli.md, "Who wrote
 * it"): one line per record that verifies, then how many do not (their writer is never shown
 * outside the untrusted section). Empty for no records.
 */
export function writtenByLines(
  records: readonly { readonly seq: number | null; readonly writtenBy: WrittenBy | null }[],
): string {
  if (records.length === 0) return '';
  let text = 'written by:\n';
  let unverified = 0;
  for (const record of records) {
    if (record.writtenBy === null) unverified += 1;
    else text += `  seq ${record.seq ?? '?'}: ${writtenByText(record.writtenBy)}\n`;
  }
  if (unverified > 0) text += `  (${unverified} record(s) do not verify: their writer is not shown)\n`;
  return text;
}
