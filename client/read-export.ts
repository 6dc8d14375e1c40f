import { FORMAT_VERSION } from '../shared/canonical/digest';
import { LineageNotFoundError } from '../shared/errors';
import type { LineageStore } from '../shared/ports/lineage-store';
import { lineagePages } from '../shared/seal/lineage-pages';
import { DEFAULT_PAGE_SIZE, type LineageProgress } from '../shared/seal/paged-verification';
import { LineageHeadSchema, type SealedRecord } from '../shared/seal/sealed-record';
import { VerificationVerdict } from '../shared/seal/verification-verdict';
import { LogVerificationError } from './errors';
import type { LineageExport } from './lineage-export';

/** Options of {@link readLineageExport}. */
export interface ReadExportOptions {
  /** Records per page (default 500). */
  readonly pageSize?: number;
  /** Called after each page of records is read. */
  readonly onProgress?: (progress: LineageProgress) => void;
}

/**
 * Reads a whole lineage, page by page, into a {@link LineageExport}: every stored record up to
 * the last one (or up to the head's seq when that is later), whatever the head claims; past the
 * head, reading stops at an empty page (the last stored record is still exported). Records
 * are exported as stored, unverified (a tampered table exports tampered records): verify the
 * export with `reseal verify --export`, or `ResealClient.verifyExport`.
 *
 * @param exportedAtMs - when the export is read (the client's clock), ms since the Unix epoch
 * @throws {LineageNotFoundError} when the lineage has neither records nor a head
 * @throws {LogVerificationError} `LINEAGE_BROKEN` when the head item is malformed (it could not be
 *   written as the export's `head`, and `reseal verify --export` would refuse the file as bad input)
 */
export async function readLineageExport(
  store: Pick<LineageStore, 'head' | 'lastRecordSeq' | 'readChain'>,
  lineageId: string,
  exportedAtMs: number,
  options: ReadExportOptions = {},
): Promise<LineageExport> {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  // The last record key before the head (see verifyLineagePages): the head is only a claim.
  const lastStoredSeq = await store.lastRecordSeq(lineageId);
  const head = await store.head(lineageId);
  if (head === null && lastStoredSeq === null) throw new LineageNotFoundError(lineageId);
  // An export its own verifier would call bad input is never written: a head item that does not
  // read as a head (a seq stored as text, or not a safe integer) is a finding, as the walk says.
  const malformed = head === null ? null : LineageHeadSchema.safeParse(head);
  if (malformed && !malformed.success) {
    const issue = malformed.error.issues[0];
    throw new LogVerificationError(
      lineageId,
      VerificationVerdict.LINEAGE_BROKEN,
      `malformed HEAD: the stored head item does not read as a head (at head.${issue?.path.join('.') ?? ''}: ${issue?.message})`,
    );
  }
  const lastSeq = Math.max(head?.seq ?? -1, lastStoredSeq ?? -1);
  const records: unknown[] = [];
  const total = lastSeq + 1;
  for await (const { from, records: page } of lineagePages(store, lineageId, lastSeq, pageSize)) {
    records.push(...page);
    options.onProgress?.({ done: Math.min(records.length, total), total });
    // An empty page past the last stored record ends the read too, whatever seq the head claims
    // (a head at seq 1e15 would otherwise be read towards page by page).
    if (page.length === 0 && from > (lastStoredSeq ?? -1)) break;
    if (page.length === 0 && from > (head?.seq ?? -1)) {
      // Cut off from the chain past the head (a far-out key, up to 2^53 − 1): reading on would
      // never end. The last stored record is exported, so verifying the export still shows it.
      if (lastStoredSeq !== null && lastStoredSeq > from) {
        records.push(...(await store.readChain(lineageId, lastStoredSeq, lastStoredSeq)));
      }
      break;
    }
  }
  return { formatVersion: FORMAT_VERSION, lineageId, exportedAtMs, head, records: records as SealedRecord[] };
}
