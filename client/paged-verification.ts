import type { LineageStore } from '../shared/ports/lineage-store';
import type { MacAnchor } from '../shared/ports/mac-anchor';
import type { ChainCheckpoint, ChainVerification, TrustedStart } from '../shared/seal/chain-verification';
import { VerificationVerdict } from '../shared/seal/verification-verdict';
import { verifyRecords } from './verify-records';

/** Records read and verified per page. */
export const DEFAULT_PAGE_SIZE = 500;

/** Progress of a long read or verification, after each page. */
export interface LineageProgress {
  /** Records read (and, for verification, verified) so far. */
  readonly done: number;
  /** Records expected in all: up to the head's seq, or the checkpoint's when later. */
  readonly total: number;
}

/** Options of {@link verifyLineagePages}. */
export interface PagedVerificationOptions {
  readonly lineageId: string;
  readonly anchor: MacAnchor;
  readonly checkpoint?: ChainCheckpoint;
  readonly pageSize?: number;
  readonly onProgress?: (progress: LineageProgress) => void;
}

/**
 * Reads a lineage from the store page by page and verifies each page as a suffix of the verified
 * prefix (`trustedStart`), so memory stays bounded on long chains. Reads up to the later of the
 * table's head and the checkpoint: the head lives in the same table and is not trusted.
 *
 * The checkpoint is handed to the page that holds its seq (and to the last page, which detects a
 * chain ending before it). Verification stops at the first failing page.
 */
export async function verifyLineagePages(
  store: Pick<LineageStore, 'head' | 'readChain'>,
  options: PagedVerificationOptions,
): Promise<ChainVerification> {
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const head = await store.head(options.lineageId);
  const lastSeq = Math.max(head?.seq ?? -1, options.checkpoint?.seq ?? -1);
  const total = lastSeq + 1;
  const records: ChainVerification['records'] = [];
  let trustedStart: TrustedStart | undefined;
  let result: ChainVerification | null = null;
  // First page whose MACs could not all be checked; later pages still run their key-free checks,
  // so an unverifiable MAC early in a long chain never hides a definite break further on.
  let firstUnverified: ChainVerification | null = null;
  let intactHead: ChainVerification['head'] = null;
  for (let from = 0; from <= lastSeq || result === null; from += pageSize) {
    const to = Math.min(from + pageSize - 1, lastSeq);
    const page = to >= from ? await store.readChain(options.lineageId, from, to) : [];
    const isLast = to >= lastSeq;
    const checkpoint = options.checkpoint && (options.checkpoint.seq <= to || isLast) ? options.checkpoint : undefined;
    result = await verifyRecords(page, {
      lineageId: options.lineageId,
      anchor: options.anchor,
      ...(checkpoint ? { checkpoint } : {}),
      ...(trustedStart ? { trustedStart } : {}),
    });
    records.push(...result.records);
    options.onProgress?.({ done: Math.min(records.length, total), total });
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
  return {
    verdict: reported.verdict,
    records,
    firstFailure: reported.firstFailure,
    head: intactHead,
    linkedThrough: final.linkedThrough,
  };
}
