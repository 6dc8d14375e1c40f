import { LineageNotFoundError } from '../errors';
import type { LineageStore } from '../ports/lineage-store';
import type { MacAnchor } from '../ports/mac-anchor';
import type { ChainVerification } from './chain-verification';
import { DEFAULT_PAGE_SIZE, lineagePages } from './lineage-pages';
import type { LineageProgress } from './lineage-progress';
import { checkStoredHead, storedRecordsSeen, withStoredHeadFinding } from './stored-head';
import type { TrustedHead } from './trusted-head';
import type { TrustedStart } from './trusted-start';
import { VerificationVerdict } from './verification-verdict';
import { verifyChain } from './verify-chain';

/** Options of {@link verifyLineagePages}. */
export interface PagedVerificationOptions {
  readonly lineageId: string;
  readonly anchor: MacAnchor;
  readonly checkpoint?: TrustedHead;
  readonly pageSize?: number;
  readonly onProgress?: (progress: LineageProgress) => void;
}

/**
 * Reads a lineage from the store page by page and verifies each page (`verifyChain`: every
 * key-free check before the MACs) as a suffix of the verified prefix (`trustedStart`), so memory
 * stays bounded on long chains. Reads until the records end
 * (the last record key, read before the head), or up to the head's or the checkpoint's seq when
 * later, stopping at the first empty page past the last stored record (so the pages read are
 * bounded by what is stored, whatever seq the head claims), then checks the stored head against the records (`checkStoredHead`): the head lives in
 * the same table, so it is a claim, never a checkpoint. A head past the records gives
 * `TRUNCATION_DETECTED`; records past the head, a head whose hash is not the record's, or records
 * without a head give `LINEAGE_BROKEN`. A definite finding in the records themselves wins.
 *
 * The checkpoint is handed to the page that holds its seq (and to the last page, which detects a
 * chain ending before it). Verification stops at the first failing page.
 *
 * @throws {LineageNotFoundError} when the lineage has neither records nor a head and no
 *   checkpoint is given (with a checkpoint, an empty lineage is `TRUNCATION_DETECTED`)
 */
export async function verifyLineagePages(
  store: Pick<LineageStore, 'head' | 'lastRecordSeq' | 'readChain'>,
  options: PagedVerificationOptions,
): Promise<ChainVerification> {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  // The last record key first, then the head: an append moves both at once, so a concurrent
  // append can never make the records look past the head.
  const lastStoredSeq = await store.lastRecordSeq(options.lineageId);
  const head = await store.head(options.lineageId);
  if (head === null && lastStoredSeq === null && !options.checkpoint) {
    throw new LineageNotFoundError(options.lineageId);
  }
  const claimedSeq = Math.max(head?.seq ?? -1, options.checkpoint?.seq ?? -1);
  const lastSeq = Math.max(claimedSeq, lastStoredSeq ?? -1);
  let lastSeen = lastStoredSeq;
  let recordHashAtHeadSeq: string | null = null;
  const total = lastSeq + 1;
  const records: ChainVerification['records'] = [];
  let trustedStart: TrustedStart | undefined;
  let result: ChainVerification | null = null;
  // First page whose MACs could not all be checked; later pages still run their key-free checks,
  // so an unverifiable MAC early in a long chain never hides a definite break further on.
  let firstUnverified: ChainVerification | null = null;
  let intactHead: ChainVerification['head'] = null;
  for await (const { from, to, records: page } of lineagePages(store, options.lineageId, lastSeq, pageSize)) {
    const seen = storedRecordsSeen(page, head, lastSeen);
    lastSeen = seen.lastSeq;
    recordHashAtHeadSeq ??= seen.recordHashAtHeadSeq;
    // Past the last stored record, an empty page ends the walk: the head or the checkpoint may
    // claim any seq (a table writer can store 2^53 − 1), but only stored records can be read, and
    // one appended concurrently (after the last record key was read) sits right after it, in a
    // page already read. The checkpoint goes to this page, which then finds the chain cut short.
    const pastStored = page.length === 0 && from > (lastSeen ?? -1);
    const isLast = to >= lastSeq || pastStored;
    const checkpoint = options.checkpoint && (options.checkpoint.seq <= to || isLast) ? options.checkpoint : undefined;
    result = await verifyChain(page, {
      lineageId: options.lineageId,
      anchor: options.anchor,
      ...(checkpoint ? { checkpoint } : {}),
      ...(trustedStart ? { trustedStart } : {}),
    });
    records.push(...result.records);
    options.onProgress?.({ done: Math.min(records.length, total), total });
    // Past every seq the head and the checkpoint claim, an empty page means the records stored
    // further on are cut off from the chain: the stored-head check reports them (`LINEAGE_BROKEN`),
    // and reading on towards a far-out key (up to 2^53 − 1) would never end.
    if (page.length === 0 && from > claimedSeq) break;
    if (firstUnverified === null) intactHead = result.head;
    const onlyUnverifiable = result.verdict === VerificationVerdict.UNVERIFIED_TAMPER_RISK && result.linkedThrough;
    if (onlyUnverifiable) firstUnverified ??= result;
    if (isLast || !(result.verdict === VerificationVerdict.VERIFIED_INTACT || onlyUnverifiable)) break;
    trustedStart = result.linkedThrough ?? undefined;
  }
  const final = result as ChainVerification;
  const definite =
    final.verdict !== VerificationVerdict.VERIFIED_INTACT &&
    final.verdict !== VerificationVerdict.UNVERIFIED_TAMPER_RISK;
  const reported = definite ? final : (firstUnverified ?? final);
  const verification: ChainVerification = {
    verdict: reported.verdict,
    records,
    firstFailure: reported.firstFailure,
    head: intactHead,
    linkedThrough: final.linkedThrough,
  };
  return withStoredHeadFinding(verification, checkStoredHead(head, { lastSeq: lastSeen, recordHashAtHeadSeq }));
}
