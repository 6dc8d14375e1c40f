import type { LineageStore } from '../shared/ports/lineage-store';

/**
 * What the pages of records a walk read showed ({@link walkReads}), for the seals this client
 * kept (docs/verifiable-log.md, "Seals seen awaiting integration"): `size`, one past the largest
 * seq read; `recordHashes`, the hash (hex) of the first record read at each seq in `seqs`.
 */
export interface WalkedPages {
  readonly seqs: ReadonlySet<number>;
  readonly recordHashes: Map<number, string>;
  size: number;
}

/** The table reads one walk shares ({@link walkReads}). */
type WalkReadable = Pick<LineageStore, 'logHead' | 'head' | 'readRecord'>;

/**
 * One whole-lineage walk's view of the table (`reseal verify --lineage`; docs/verifiable-log.md,
 * "Verifying a whole lineage"): the head item is read once per lineage and that one read is
 * threaded through the plan, the walk's stored-head claim, the signed log's latest checkpoint, the
 * log state the sealer authenticates and the head's freshness (`head` is the same item's
 * `LineageHead`); a record read by seq (`readRecord`: the last leaf proven, the head's record) is
 * read once too. The walk
 * is then tied to one snapshot of the head, as it is to one pass over the records; everything
 * read is still verified where it is used. With `pages`, the pages of records read (`readChain`)
 * are also noted there ({@link WalkedPages}). Other reads pass through.
 */
export function walkReads<S extends WalkReadable>(store: S, pages?: WalkedPages): S {
  const heads = new Map<string, ReturnType<LineageStore['logHead']>>();
  const records = new Map<string, Promise<unknown>>();
  const at = (lineageId: string, seq: number) => `${lineageId}\u0000${seq}`;
  const logHead = (lineageId: string) => {
    let read = heads.get(lineageId);
    if (!read) {
      read = store.logHead(lineageId);
      heads.set(lineageId, read);
      // A failed read is not remembered: the next use reads again.
      read.catch(() => heads.delete(lineageId));
    }
    return read;
  };
  const readChain: LineageStore['readChain'] = async (lineageId, fromSeq, toSeq) => {
    const page = await (store as unknown as Pick<LineageStore, 'readChain'>).readChain(lineageId, fromSeq, toSeq);
    if (pages) noteWalkPage(pages, page);
    return page;
  };
  const own: WalkReadable & Partial<Pick<LineageStore, 'readChain'>> = {
    ...(pages ? { readChain } : {}),
    logHead,
    head: async (lineageId) => (await logHead(lineageId))?.head ?? null,
    readRecord: (lineageId, seq) => {
      let read = records.get(at(lineageId, seq));
      if (!read) {
        read = store.readRecord(lineageId, seq);
        records.set(at(lineageId, seq), read);
        read.catch(() => records.delete(at(lineageId, seq)));
      }
      return read;
    },
  };
  return new Proxy(store, {
    get(target, property, receiver) {
      if (Object.hasOwn(own, property)) return own[property as keyof typeof own];
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Notes a page of raw records (each at the seq its header names, which the walk checks) in `pages`. */
export function noteWalkPage(pages: WalkedPages, page: readonly unknown[]): void {
  for (const raw of page) {
    const record = raw as { recordHash?: unknown; header?: { monotonicSequenceNumber?: unknown } } | null;
    const seq = record?.header?.monotonicSequenceNumber;
    if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) continue;
    pages.size = Math.max(pages.size, seq + 1);
    if (pages.seqs.has(seq) && !pages.recordHashes.has(seq) && typeof record?.recordHash === 'string')
      pages.recordHashes.set(seq, record.recordHash);
  }
}
