import type { SealedRecord } from '../shared/seal/sealed-record';
import type { LatestCheckpoint, LogReader } from './log-reader';

/**
 * Most records of a lineage read, newest first, by one {@link searchLoggedSeal}: a seal is looked
 * for among the records sealed lately, a bounded number of reads even on a busy lineage.
 */
export const MAX_HIDDEN_SEAL_SCAN = 256;

/** What {@link searchLoggedSeal} looks for, and how far back. */
export interface LoggedSealQuery {
  readonly lineageId: string;
  readonly residualId: string;
  /** The lineage's newest signed checkpoint, as the client read it: the records searched are proven in it. */
  readonly latest: LatestCheckpoint;
  /** The search stops below this seq (the lineage's indexed size: what the index already answers for). @default 0 */
  readonly fromSeq?: number;
  /** A record sealed before this time (ms) ends the search: no older record can be the one sought. */
  readonly sinceMs?: number;
  /** A record of the residual id counts only when this holds (e.g. it binds the write published). */
  readonly matches?: (record: SealedRecord) => boolean;
}

/** The record found, or how much was searched without finding it. */
export type LoggedSealSearch =
  | { readonly kind: 'FOUND'; readonly seq: number; readonly record: SealedRecord }
  | {
      readonly kind: 'NOT_FOUND';
      /** Records from `fromSeq` to the checkpoint's size. */
      readonly records: number;
      /** Records read and proven, newest first: fewer than `records` past the bound or `sinceMs`. */
      readonly searched: number;
      /** Whether every record that could hold it was read (the bound not reached). */
      readonly complete: boolean;
    };

/**
 * Looks for a residual id's seal in a lineage's signed log, newest record first, each record
 * proven by inclusion in `latest` (docs/deployment-log.md, "Clients"; docs/cli.md, `publish
 * --wait`): where a table writer cannot hide it by deleting the residual-id marker. Reads at most
 * {@link MAX_HIDDEN_SEAL_SCAN} records.
 *
 * @throws {LogVerificationError} when a record read does not prove in `latest`
 */
export async function searchLoggedSeal(
  log: Pick<LogReader, 'proveIn'>,
  query: LoggedSealQuery,
): Promise<LoggedSealSearch> {
  const { lineageId, residualId, latest } = query;
  const fromSeq = Math.max(0, query.fromSeq ?? 0);
  const since = query.sinceMs ?? Number.NEGATIVE_INFINITY;
  const last = latest.checkpoint.size - 1;
  const records = Math.max(0, last + 1 - fromSeq);
  let searched = 0;
  for (let seq = last; seq >= fromSeq; seq--) {
    if (searched >= MAX_HIDDEN_SEAL_SCAN) return { kind: 'NOT_FOUND', records, searched, complete: false };
    const { record } = await log.proveIn(lineageId, seq, latest);
    searched += 1;
    if (record.sealedAtMs < since) return { kind: 'NOT_FOUND', records, searched, complete: true };
    if (record.header.residualId !== residualId) continue;
    if (query.matches && !query.matches(record)) continue;
    return { kind: 'FOUND', seq, record };
  }
  return { kind: 'NOT_FOUND', records, searched, complete: true };
}
