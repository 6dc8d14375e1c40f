import { describe, expect, it } from 'vitest';
import { LineageKeys, UNPARSED_LINEAGE } from '../../../adapters/lineage-keys';
import { codeSpans, docPage, section, tableRows } from '../../helpers/markdown';

// docs/pipeline.md "Data layout": the key templates of each item, against adapters/lineage-keys.ts.
const rows = tableRows(section(docPage('pipeline.md'), 'Data layout (one table, string keys `pk`, `sk`)'));
/** The first code span of an item's pk or sk cell. */
const keyCell = (item: string, column: 1 | 2): string => {
  const row = rows.find((r) => r[0] === item);
  if (!row) throw new Error(`docs/pipeline.md "Data layout" has no ${item} row`);
  return codeSpans(row[column] ?? '')[0] ?? '';
};
/** A key with its ISO timestamp written as the page's `<isoTime>` placeholder. */
const iso = (key: string) => key.replace(new Date(0).toISOString(), '<isoTime>');

describe('docs/pipeline.md "Data layout" against adapters/lineage-keys.ts', () => {
  it('the item keys the page shows are the keys the adapter writes', () => {
    expect(rows.map((r) => r[0])).toEqual([
      'record',
      'manifest',
      'head',
      'residual marker',
      'conflict',
      'rejection',
      'triage report',
    ]);
    for (const item of ['record', 'head', 'residual marker', 'conflict']) {
      expect(keyCell(item, 1), `${item} pk`).toBe(LineageKeys.lineage('<lineageId>'));
    }
    expect(LineageKeys.record(7)).toBe(
      `${keyCell('record', 2).replace('<seq, 16 digits>', '')}${'7'.padStart(16, '0')}`,
    );
    expect(keyCell('manifest', 1)).toBe(LineageKeys.manifest('<lineageId>', '<manifestDigest>'));
    expect(keyCell('manifest', 2)).toBe(LineageKeys.manifestSk);
    expect(keyCell('head', 2)).toBe(LineageKeys.head);
    expect(keyCell('residual marker', 2)).toBe(LineageKeys.residualSk('<residualId>'));
    expect(keyCell('conflict', 2)).toBe(iso(LineageKeys.conflict('<residualId>', 0, '<messageId>')));
    expect(keyCell('rejection', 1)).toBe(
      `${LineageKeys.rejection('<lineageId>').replace('<lineageId>', '')}<lineageId or "${UNPARSED_LINEAGE}">`,
    );
    expect(LineageKeys.rejection(null)).toBe(LineageKeys.rejection(UNPARSED_LINEAGE));
    expect(keyCell('rejection', 2)).toBe(iso(LineageKeys.rejectionSk(0, '<sqsMessageId>')));
    expect(keyCell('triage report', 1)).toBe(LineageKeys.triage('<lineageId>'));
    expect(keyCell('triage report', 2)).toBe('<requestId>');
  });
});
