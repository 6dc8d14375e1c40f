import type { LineageStore } from '../ports/lineage-store';

/** Records read and verified per page. */
export const DEFAULT_PAGE_SIZE = 500;

/** One page of a lineage: the records stored at seqs `from` to `to` (as stored, unverified). */
export interface LineagePage {
  readonly from: number;
  readonly to: number;
  /** `store.readChain(lineageId, from, to)`; empty when `to < from`. */
  readonly records: unknown[];
}

/**
 * The pages of a lineage from seq 0, `pageSize` seqs each, up to `lastSeq`: one
 * `readChain(lineageId, from, to)` per page, read only when the caller asks for the page, so
 * memory stays bounded on long chains and a caller that leaves its `for await` loop (`break`)
 * reads nothing more. The one paging loop of the verification walk (`verifyLineagePages`) and
 * the export (`readLineageExport`); each decides for itself when to stop early (an empty page
 * past the last stored record, a failing page).
 *
 * Always yields at least one page (an empty one when `lastSeq` < 0), and a last page whose `to`
 * is `lastSeq`.
 *
 * @param lastSeq - the last seq to read (the latest of the last stored record and the claims)
 * @param pageSize - seqs per page, at least 1
 */
export async function* lineagePages(
  store: Pick<LineageStore, 'readChain'>,
  lineageId: string,
  lastSeq: number,
  pageSize: number,
): AsyncGenerator<LineagePage, void, undefined> {
  for (let from = 0; ; from += pageSize) {
    const to = Math.min(from + pageSize - 1, lastSeq);
    yield { from, to, records: to >= from ? await store.readChain(lineageId, from, to) : [] };
    if (to >= lastSeq) return;
  }
}
